// Package counterit tests recipes/counter against real ZooKeeper servers:
// ports of Curator's TestDistributedAtomicLong, lost replies, bad input,
// increments under link cuts and a server kill on an ensemble, and Curator
// 5.4's own DistributedAtomicLong on the same counter.
package counterit

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// shared is the single server most tests use, each under its own namespace.
var shared *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) {
		fmt.Fprintln(os.Stderr, "counterit: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}
