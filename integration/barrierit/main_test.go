// Package barrierit tests recipes/barrier against real ZooKeeper servers:
// ports of Curator's TestDistributedBarrier and
// TestDistributedDoubleBarrier, the recipe's own promises under faults (a
// cut link, an expired session, a server stopped or killed in a 3-server
// ensemble), and Curator 5.4's own barriers on the same paths.
package barrierit

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
		fmt.Fprintln(os.Stderr, "barrierit: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}
