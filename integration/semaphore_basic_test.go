package integration

import (
	"context"
	"fmt"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// TestSemaphoreSimple is Curator's testSimple: with one lease, a second
// TryAcquire fails at once with ErrNoLeases and leaves no node.
func TestSemaphoreSimple(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	s1 := semNew(t, connect(t, clientOpts{ns: ns}), 1)
	s2 := semNew(t, connect(t, clientOpts{ns: ns}), 1)

	lease, err := s1.TryAcquire(ctx)
	require.NoError(t, err)
	require.Regexp(t, `^_c_[0-9a-f-]{36}-lease-[0-9]{10}$`, path.Base(lease.Node()))
	require.Equal(t, semLeases, path.Dir(lease.Node()))

	start := time.Now()
	_, err = s2.TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrNoLeases)
	t.Logf("second TryAcquire failed after %v", time.Since(start))
	require.Equal(t, []string{path.Base(lease.Node())}, children(t, obs, semLeases), "the failed try left a lease node")
	eventually(t, 10*time.Second, "locks/ to be empty", func() bool { return len(children(t, obs, semLocks)) == 0 })

	require.NoError(t, lease.Release(ctx))
	lease2, err := s2.TryAcquire(ctx)
	require.NoError(t, err)
	require.NoError(t, lease2.Release(ctx))
	semNoNodes(t, obs)
}

// TestSemaphoreSimple2 is Curator's testSimple2: with three leases the
// fourth try fails; after one release it succeeds.
func TestSemaphoreSimple2(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	const max = 3
	var sems []*semaphore.Semaphore
	for range max + 1 {
		sems = append(sems, semNew(t, connect(t, clientOpts{ns: ns}), max))
	}
	var leases []*semaphore.Lease
	for i := range max {
		l, err := sems[i].TryAcquire(ctx)
		require.NoError(t, err, "lease %d", i)
		leases = append(leases, l)
	}
	n, err := sems[max].Available(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	_, err = sems[max].TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrNoLeases)
	require.Len(t, children(t, obs, semLeases), max)

	require.NoError(t, leases[0].Release(ctx))
	n, err = sems[max].Available(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	l, err := sems[max].TryAcquire(ctx)
	require.NoError(t, err)
	semReleaseAll(t, ctx, append(leases[1:], l))
	semNoNodes(t, obs)
}

// TestSemaphoreHolders is Curator's testGetParticipantNodes: Holders lists
// the leases in sequence order with their data.
func TestSemaphoreHolders(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	const max = 3
	var leases []*semaphore.Lease
	var s *semaphore.Semaphore
	for i := range max {
		s = semNew(t, connect(t, clientOpts{ns: ns}), max, semaphore.WithData(fmt.Appendf(nil, "worker-%d", i)))
		l, err := s.Acquire(ctx)
		require.NoError(t, err)
		leases = append(leases, l)
	}
	hs, err := s.Holders(ctx)
	require.NoError(t, err)
	require.Len(t, hs, max)
	for i, h := range hs {
		require.Equal(t, leases[i].Node(), h.Path)
		require.Equal(t, path.Base(h.Path), h.Name)
		require.Equal(t, fmt.Sprintf("worker-%d", i), string(h.Data))
		require.Equal(t, fmt.Sprintf("worker-%d", i), string(leases[i].Data()))
		tok, err := leases[i].Token(ctx)
		require.NoError(t, err)
		require.Equal(t, tok, h.Czxid, "the token is the node's czxid")
		if i > 0 {
			require.Greater(t, h.Czxid, hs[i-1].Czxid)
		}
	}
	semReleaseAll(t, ctx, leases)
	hs, err = s.Holders(ctx)
	require.NoError(t, err)
	require.Empty(t, hs)
	n, err := s.Available(ctx)
	require.NoError(t, err)
	require.Equal(t, max, n)
}

// TestSemaphoreLease checks one lease's life: Token, Lost on Release, a
// second Release, a deleted node, a closed client.
func TestSemaphoreLease(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	c := connect(t, clientOpts{ns: ns})
	s := semNew(t, c, 2)

	l1, err := s.Acquire(ctx)
	require.NoError(t, err)
	tok1, err := l1.Token(ctx)
	require.NoError(t, err)
	require.Positive(t, tok1)
	require.False(t, closed(l1.Lost()))
	require.NoError(t, l1.Release(ctx))
	require.True(t, closed(l1.Lost()), "Lost stays open after Release")
	require.ErrorIs(t, l1.Release(ctx), zkrecipes.ErrNotHeld)
	_, err = l1.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrNotHeld)

	// The next lease has a greater token; deleting its node closes Lost.
	l2, err := s.Acquire(ctx)
	require.NoError(t, err)
	tok2, err := l2.Token(ctx)
	require.NoError(t, err)
	require.Greater(t, tok2, tok1)
	require.NoError(t, obs.Delete(ctx, l2.Node(), -1))
	require.True(t, waitClosed(l2.Lost(), 10*time.Second), "Lost stayed open after the node was deleted")
	_, err = l2.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	require.NoError(t, l2.Release(ctx), "releasing a lost lease deletes nothing and succeeds")

	// Closing the client closes Lost.
	l3, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.True(t, waitClosed(l3.Lost(), 10*time.Second), "Lost stayed open after the client closed")
	require.ErrorIs(t, l3.Release(ctx), zkrecipes.ErrClosed)
	_, err = s.Acquire(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
	semNoNodes(t, obs)
}

// TestSemaphoreLostOnSuspend cuts a holder's connection: by default Lost
// closes at once (Suspended); with WithLostOnSessionLossOnly it stays open
// while the session lives, and the lease survives the reconnect.
func TestSemaphoreLostOnSuspend(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	strict := semNew(t, c, 2)
	lenient := semNew(t, c, 2, semaphore.WithLostOnSessionLossOnly())
	ls, err := strict.Acquire(ctx)
	require.NoError(t, err)
	ll, err := lenient.Acquire(ctx)
	require.NoError(t, err)
	_, err = ll.Token(ctx)
	require.NoError(t, err)

	link.Cut()
	require.True(t, waitClosed(ls.Lost(), 10*time.Second), "Lost stayed open while Suspended")
	require.False(t, closed(ll.Lost()), "WithLostOnSessionLossOnly: Lost closed on Suspended")
	link.Restore()
	_, err = c.WaitSession(ctx)
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // the session is back: nothing more happens
	require.False(t, closed(ll.Lost()), "the lease survived the reconnect, yet Lost closed")
	_, err = ls.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	require.NoError(t, ls.Release(ctx))
	require.NoError(t, ll.Release(ctx))
	semNoNodes(t, c)
}

// TestSemaphoreBadInput: bad arguments fail at once with typed errors, never
// a panic, and leave nothing on the server.
func TestSemaphoreBadInput(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	c := connect(t, clientOpts{ns: ns})

	_, err := semaphore.New(nil, semPath, 1)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	for _, p := range []string{"", "sem", "/sem/", "/a//b", "/", "/zookeeper/x"} {
		_, err = semaphore.New(c, p, 1)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "path %q", p)
	}
	for _, m := range []int{0, -1} {
		_, err = semaphore.New(c, semPath, m)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "max %d", m)
	}
	_, err = semaphore.New(c, semPath, 1, nil)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)

	s := semNew(t, c, 3)
	for _, n := range []int{0, -2} {
		_, err = s.AcquireN(ctx, n)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "n %d", n)
	}
	_, err = s.AcquireN(ctx, 4)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, err, semaphore.ErrTooManyLeases)
	//lint:ignore SA1012 a nil context is the bad input under test
	_, err = s.Acquire(nil) //nolint:staticcheck
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Acquire(cctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.TryAcquire(cctx)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, exists(t, c, semPath), "bad input made nodes")

	// Zero values answer, never panic.
	var zs semaphore.Semaphore
	_, err = zs.Acquire(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = zs.TryAcquire(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = zs.AcquireN(ctx, 1)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = zs.Holders(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = zs.Available(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	require.Empty(t, zs.Path())
	require.Zero(t, zs.MaxLeases())
	var zl semaphore.Lease
	require.ErrorIs(t, zl.Release(ctx), zkrecipes.ErrInvalidArgument)
	_, err = zl.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	require.True(t, closed(zl.Lost()))
	require.Empty(t, zl.Node())
	require.Nil(t, zl.Data())
	var nl *semaphore.Lease
	require.ErrorIs(t, nl.Release(ctx), zkrecipes.ErrInvalidArgument)
}
