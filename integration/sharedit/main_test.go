// Package sharedit tests recipes/shared's Bytes (Curator's SharedValue)
// and the Count that stands on it against real ZooKeeper servers: ports of
// Curator's TestSharedCount (which exercises SharedValue underneath),
// arbitrary bytes, compare-and-set races, events that lose nothing, Start
// going on in the background, a 3-server ensemble, and Curator 5.4's own
// SharedValue on the same node.
package sharedit

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// one is the single server most tests use, each under its own namespace.
var one *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) {
		fmt.Fprintln(os.Stderr, "sharedit: shared cluster:", c)
		one = c
		itest.KeepRoot(c)
	})
}
