// Package abandonit tests that a wait given up leaves nothing behind.
// Every recipe call that blocks waiting on ZooKeeper (a Lock, an Acquire,
// a barrier's Wait, Enter and Leave, a latch's Await, Run, a queue's Take,
// Consume and bounded Put, a Multi's Lock, Observe) is started many times
// at once against a state that keeps it waiting, then its context is
// cancelled: each call must return ctx's error having acquired nothing,
// and then the server's watch count (data and child watches: mntr's
// zk_watch_count, since wchs counts the data watches only), the waiting
// client's one-shot watches (client.Client.DataWatches), the process's
// goroutines and the recipe's nodes must all be back where they were
// before the waits began. Each recipe runs so on 500 distinct paths
// (one wait each) and with 50 waits on one path. Recipes that watch for as
// long as they are started (shared values, kept nodes, a cache with a
// watch per node) must leave nothing on the server once closed.
//
// The shared server follows ZK_VERSION (3.8.0 by default; CI runs the
// package again on 3.9.3 with ZK_BACKEND=local ZK_VERSION=3.9.3). One test
// runs a server without removeWatches (3.4.13) of its own.
package abandonit

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// shared is the single server every test but the 3.4 one uses, each under
// its own namespace. Tests must not run in parallel: they count the whole
// server's watches.
var shared *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		v, err := c.ServerVersion(ctx, 0)
		cancel()
		if err != nil {
			v = "unknown (" + err.Error() + ")"
		}
		fmt.Fprintf(os.Stderr, "abandonit: shared cluster: %s, ZooKeeper %s\n", c, v)
		shared = c
		itest.KeepRoot(c)
	})
}
