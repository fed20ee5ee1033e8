// Package queueit tests recipes/queue against real ZooKeeper servers: ports
// of Curator's own queue tests (TestDistributedQueue,
// TestDistributedIdQueue, TestDistributedPriorityQueue,
// TestDistributedDelayQueue, TestSimpleDistributedQueue and
// TestBoundedDistributedQueue) on one server and on a 3-server ensemble,
// Curator 5.4's queues on the same path, bad input, lost replies and
// session loss, and the herd each put wakes.
package queueit

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// shared is the single server most tests use, each under its own
// namespace; ensemble the 3-server ensemble the Curator ports also run on.
var shared, ensemble *zktest.Cluster

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	var wg sync.WaitGroup
	var errOne, errThree error
	wg.Go(func() { shared, errOne = zktest.Start(ctx) })
	wg.Go(func() { ensemble, errThree = zktest.Start(ctx, zktest.WithServers(3)) })
	wg.Wait()
	cancel()
	code := 1
	if errOne != nil || errThree != nil {
		fmt.Fprintln(os.Stderr, "queueit: cannot start ZooKeeper (tests are never skipped):", errOne, errThree)
	} else {
		fmt.Fprintln(os.Stderr, "queueit: shared cluster:", shared, "ensemble:", ensemble)
		itest.KeepRoot(shared, ensemble)
		code = m.Run()
	}
	for _, c := range []*zktest.Cluster{shared, ensemble} {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "queueit: stop ZooKeeper:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}
