// Package multilockit tests recipes/mutex's Multi (Curator's
// InterProcessMultiLock) against real ZooKeeper servers: ports of Curator's
// TestInterProcessMultiMutex and of the TestInterProcessMutexBase
// scenarios it inherits, the deadlock Curator's list order allows (two
// processes, reversed lists) finishing, bad input, the loss of one lock of
// a set, a 3-server ensemble, and Curator 5.4's own InterProcessMultiLock
// on the same paths.
package multilockit

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
		fmt.Fprintln(os.Stderr, "multilockit: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}
