// Package groupit tests recipes/group against real ZooKeeper servers, and
// against Curator 5.4's own GroupMember.
package groupit

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
		fmt.Fprintln(os.Stderr, "groupit: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}
