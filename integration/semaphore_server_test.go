package integration

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestSemaphoreAcquireAfterLostServer is Curator's
// testAcquireAfterLostServer on a dedicated one-server cluster: ten clients
// keep acquiring and releasing leases (limit 3) while the server is stopped
// for longer than their session timeout and started again. Every client
// acquires again afterwards, never more than the limit at once, and nothing
// is left behind.
func TestSemaphoreAcquireAfterLostServer(t *testing.T) {
	noLeaks(t)
	cl := zktest.ForTest(t)
	ns := namespace(t)
	ctx := ctxT(t, 150*time.Second)
	pol, err := retry.UntilElapsed(60*time.Second, 250*time.Millisecond)
	require.NoError(t, err)
	opts := clientOpts{cluster: cl, ns: ns, timeout: 2 * time.Second, extra: []client.Option{client.WithRetryPolicy(pol)}}
	const workers, limit = 10, 3

	var g semGauge
	var phase atomic.Int32 // 0 before the outage, 1 during, 2 after the restart
	after := make([]atomic.Int32, workers)
	var acquireErrs atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var clients []*client.Client
	var first []*client.Session
	for w := range workers {
		c := connect(t, opts)
		clients, first = append(clients, c), append(first, c.Session())
		s := semNew(t, c, limit)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				actx, cancel := context.WithTimeout(ctx, 60*time.Second)
				l, err := s.Acquire(actx)
				cancel()
				if err != nil {
					acquireErrs.Add(1)
					t.Logf("worker %d: acquire: %v", w, err)
					time.Sleep(100 * time.Millisecond)
					continue
				}
				g.enter(1, 0)
				if phase.Load() == 2 {
					after[w].Add(1)
				}
				time.Sleep(5 * time.Millisecond)
				g.leave(1)
				rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
				_ = l.Release(rctx) // during the outage the delete is left to the background
				rcancel()
			}
		}()
	}
	eventually(t, 30*time.Second, "grants before the outage", func() bool {
		_, _, n := g.stats()
		return n >= 3*workers
	})
	require.NoError(t, cl.StopServer(ctx, 0))
	phase.Store(1)
	time.Sleep(4 * time.Second) // past the 2 s session timeout
	require.NoError(t, cl.StartServer(ctx, 0))
	phase.Store(2)
	eventually(t, 90*time.Second, "every client to acquire after the restart", func() bool {
		for w := range after {
			if after[w].Load() < 2 {
				return false
			}
		}
		return true
	})
	close(stop)
	wg.Wait()
	peak, _, grants := g.stats()
	t.Logf("grants %d, peak %d, failed acquires %d", grants, peak, acquireErrs.Load())
	require.LessOrEqual(t, peak, limit)
	for i, c := range clients {
		require.NotSame(t, first[i], c.Session(), "client %d kept its session: the outage was not past the session timeout", i)
	}
	obs := connect(t, opts)
	semNoNodes(t, obs)
}
