package integration

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// TestSemaphoreRelease1AtATime is Curator's testRelease1AtATime: ten
// clients, five leases. Every holder keeps its lease until five are held at
// once, so the peak is exactly five, never six (in the process and counted
// on the server at every grant).
func TestSemaphoreRelease1AtATime(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	const clients, max = 10, 5
	var g semGauge
	full := make(chan struct{})
	var fullOnce sync.Once
	var wg sync.WaitGroup
	for i := range clients {
		s := semNew(t, connect(t, clientOpts{ns: ns}), max)
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := s.Acquire(ctx)
			if !assert.NoError(t, err, "client %d", i) {
				return
			}
			g.enter(1, semServerCount(t, obs, []*semaphore.Lease{l}))
			if g.now() == max {
				fullOnce.Do(func() { close(full) })
			}
			select {
			case <-full:
			case <-ctx.Done():
			}
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			g.leave(1)
			assert.NoError(t, l.Release(ctx))
		}()
	}
	wg.Wait()
	peak, serverPeak, grants := g.stats()
	t.Logf("grants %d, peak %d, server-side peak %d", grants, peak, serverPeak)
	require.Equal(t, clients, grants)
	require.Equal(t, max, peak)
	require.LessOrEqual(t, serverPeak, max)
	semNoNodes(t, obs)
}

// TestSemaphoreReleaseInChunks is Curator's testReleaseInChunks, with a
// client per goroutine: holders are released in random chunks while the
// others wait; the leases held never exceed the limit, and every slot is
// filled before each chunk is released.
func TestSemaphoreReleaseInChunks(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 180*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	const workers, max, rounds = 16, 5, 3
	var g semGauge
	release, left := make(chan struct{}), make(chan struct{}, workers)
	var mu sync.Mutex
	active := workers // goroutines with rounds left
	var wg sync.WaitGroup
	for i := range workers {
		s := semNew(t, connect(t, clientOpts{ns: ns}), max)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { mu.Lock(); active--; mu.Unlock() }()
			for r := range rounds {
				l, err := s.Acquire(ctx)
				if !assert.NoError(t, err, "worker %d round %d", i, r) {
					return
				}
				g.enter(1, semServerCount(t, obs, []*semaphore.Lease{l}))
				select {
				case <-release:
				case <-ctx.Done():
				}
				g.leave(1)
				left <- struct{}{} // the controller counts it out before it looks again
				assert.NoError(t, l.Release(ctx))
			}
		}()
	}
	released := 0
	for released < workers*rounds {
		// Wait until every slot that can be filled is filled...
		eventually(t, 30*time.Second, "the leases to be taken", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return g.now() == min(max, active)
		})
		// ...then release a random chunk of the holders.
		chunk := 1 + rand.IntN(g.now())
		for range chunk {
			release <- struct{}{}
			<-left
		}
		released += chunk
	}
	wg.Wait()
	peak, serverPeak, grants := g.stats()
	t.Logf("grants %d, peak %d, server-side peak %d", grants, peak, serverPeak)
	require.Equal(t, workers*rounds, grants)
	require.Equal(t, max, peak)
	require.LessOrEqual(t, serverPeak, max)
	semNoNodes(t, obs)
}

// TestSemaphoreMaxPerSession is in the spirit of Curator's
// testMaxPerSession: clients take random numbers of leases at once with
// AcquireN; the leases held never exceed the limit.
func TestSemaphoreMaxPerSession(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 180*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	const workers, max, rounds = 5, 6, 8
	var g semGauge
	var wg sync.WaitGroup
	for i := range workers {
		s := semNew(t, connect(t, clientOpts{ns: ns}), max)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				n := 1 + rand.IntN(max)
				ls, err := s.AcquireN(ctx, n)
				if !assert.NoError(t, err, "worker %d round %d", i, r) {
					return
				}
				assert.Len(t, ls, n)
				g.enter(n, semServerCount(t, obs, ls))
				time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond)
				g.leave(n)
				semReleaseAll(t, ctx, ls)
			}
		}()
	}
	wg.Wait()
	peak, serverPeak, grants := g.stats()
	t.Logf("grants %d, peak %d, server-side peak %d", grants, peak, serverPeak)
	require.Equal(t, workers*rounds, grants)
	require.LessOrEqual(t, peak, max)
	require.LessOrEqual(t, serverPeak, max)
	semNoNodes(t, obs)
}

// TestSemaphoreSharedHandle has goroutines share one handle (one client):
// they queue in the process for the locks mutex and never exceed the limit.
func TestSemaphoreSharedHandle(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	s := semNew(t, connect(t, clientOpts{ns: ns}), 3)
	var g semGauge
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				l, err := s.Acquire(ctx)
				if !assert.NoError(t, err) {
					return
				}
				g.enter(1, semServerCount(t, obs, []*semaphore.Lease{l}))
				time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
				g.leave(1)
				assert.NoError(t, l.Release(ctx))
			}
		}()
	}
	wg.Wait()
	peak, serverPeak, grants := g.stats()
	t.Logf("grants %d, peak %d, server-side peak %d", grants, peak, serverPeak)
	require.Equal(t, 40, grants)
	require.LessOrEqual(t, peak, 3)
	require.LessOrEqual(t, serverPeak, 3)
	semNoNodes(t, obs)
}

// TestSemaphoreClientClose is Curator's testClientClose: closing the client
// that holds the only lease frees it for another.
func TestSemaphoreClientClose(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	c1 := connect(t, clientOpts{ns: ns})
	c2 := connect(t, clientOpts{ns: ns})
	s1, s2 := semNew(t, c1, 1), semNew(t, c2, 1)
	l1, err := s1.Acquire(ctx)
	require.NoError(t, err)
	_, err = s2.TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrNoLeases)

	res := semAcquireAsync(ctx, s2, 1)
	semWaiting(t, c2, 2)
	pending(t, res, 100*time.Millisecond, "acquire while the lease is held")
	require.NoError(t, c1.Close())
	require.True(t, waitClosed(l1.Lost(), 10*time.Second), "Lost stayed open after the client closed")
	r := await(t, res, 10*time.Second, "acquire after the holder's client closed")
	require.NoError(t, r.err)
	semReleaseAll(t, ctx, r.leases)
	semNoNodes(t, c2)
}

// semOneAtATime takes n leases the way Curator's acquire(qty) does: one
// Acquire (one hold of the locks mutex) per lease. After the first two it
// waits at barrier (the helper for the deadlock that AcquireN avoids).
func semOneAtATime(ctx context.Context, s *semaphore.Semaphore, n int, barrier *sync.WaitGroup) ([]*semaphore.Lease, error) {
	var out []*semaphore.Lease
	for i := range n {
		l, err := s.Acquire(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, l)
		if i == 1 {
			barrier.Done()
			barrier.Wait()
		}
	}
	return out, nil
}

// TestSemaphoreThreeAndThreeOfFour: limit 4, two clients each wanting 3.
// With AcquireN both finish, one after the other. Taking the leases one at a
// time (Curator's acquire(qty)) can interleave 2+2, and then both wait
// holding what they have until their deadline: shown here too.
func TestSemaphoreThreeAndThreeOfFour(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	sems := []*semaphore.Semaphore{semNew(t, connect(t, clientOpts{ns: ns}), 4), semNew(t, connect(t, clientOpts{ns: ns}), 4)}

	t.Run("AcquireN", func(t *testing.T) {
		var g semGauge
		var wg sync.WaitGroup
		for i, s := range sems {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ls, err := s.AcquireN(ctx, 3)
				if !assert.NoError(t, err, "client %d", i) {
					return
				}
				g.enter(3, semServerCount(t, obs, ls))
				time.Sleep(200 * time.Millisecond)
				g.leave(3)
				semReleaseAll(t, ctx, ls)
			}()
		}
		wg.Wait()
		peak, serverPeak, grants := g.stats()
		require.Equal(t, 2, grants)
		require.Equal(t, 3, peak, "the two AcquireN(3) overlapped")
		require.LessOrEqual(t, serverPeak, 4)
		semNoNodes(t, obs)
	})

	t.Run("one at a time deadlocks", func(t *testing.T) {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var barrier sync.WaitGroup
		barrier.Add(2)
		type result struct {
			leases []*semaphore.Lease
			err    error
		}
		out := make(chan result, 2)
		for _, s := range sems {
			go func() {
				ls, err := semOneAtATime(wctx, s, 3, &barrier)
				out <- result{ls, err}
			}()
		}
		for range 2 {
			r := await(t, out, 30*time.Second, "one-at-a-time acquirer")
			require.ErrorIs(t, r.err, context.DeadlineExceeded, "both must be stuck until their deadline")
			require.Len(t, r.leases, 2, "each holds 2 of the 3 it needs")
			semReleaseAll(t, ctx, r.leases)
		}
		semNoNodes(t, obs)
	})
}

// semStuckHolder is a lease taken on its own client, for the tests that need
// the semaphore full.
func semStuckHolder(t *testing.T, ctx context.Context, ns string, max int) (*client.Client, *semaphore.Lease) {
	t.Helper()
	c := connect(t, clientOpts{ns: ns})
	l, err := semNew(t, c, max).Acquire(ctx)
	require.NoError(t, err)
	return c, l
}
