package abandonit

import (
	"testing"

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestAbandonedLocksOn34: on ZooKeeper 3.4.13, which has no removeWatches,
// 500 Locks on 500 distinct paths given up leave nothing in the client (its
// DataWatches back at (0, 0)) and no goroutine, and no node; their watches
// stay on the server until they fire, which the holder's release (its
// nodes deleted) makes them do, bringing the server's watches back to
// their count before the setup.
func TestAbandonedLocksOn34(t *testing.T) {
	cl := zktest.ForTest(t, zktest.WithBackend(zktest.BackendLocal), zktest.WithVersion(zktest.Version34))
	runAbandon(t, cl, mutexLock(), shape{paths: 500, perPath: 1, noRemoveWatches: true, noContainers: true})
}
