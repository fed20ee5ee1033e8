// Package cacheit tests recipes/cache against real ZooKeeper servers.
package cacheit

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
		fmt.Fprintln(os.Stderr, "cacheit: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}
