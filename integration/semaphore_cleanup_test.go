package integration

import (
	"context"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSemaphoreNoOrphanedNodes is Curator's testNoOrphanedNodes: deleting a
// waiter's lease node makes it try again with a new one; once the holder
// releases, it holds, and nothing is left after its release.
func TestSemaphoreNoOrphanedNodes(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	c := connect(t, clientOpts{ns: ns})
	s := semNew(t, c, 1)
	holder, err := s.Acquire(ctx)
	require.NoError(t, err)

	res := semAcquireAsync(ctx, s, 1) // the same handle: it waits in ZooKeeper, not in the process
	kids := semWaiting(t, obs, 2)
	i := slices.IndexFunc(kids, func(k string) bool { return k != path.Base(holder.Node()) })
	first := kids[i]
	require.NoError(t, obs.Delete(ctx, path.Join(semLeases, first), -1))
	// It comes back with a new node, and waits again.
	eventually(t, 10*time.Second, "the waiter's new lease node", func() bool {
		kids := children(t, obs, semLeases)
		return len(kids) == 2 && !slices.Contains(kids, first)
	})
	pending(t, res, 100*time.Millisecond, "the waiter while the lease is held")

	require.NoError(t, holder.Release(ctx))
	r := await(t, res, 10*time.Second, "the waiter after the release")
	require.NoError(t, r.err)
	require.Len(t, r.leases, 1)
	require.NotEqual(t, first, path.Base(r.leases[0].Node()))
	semReleaseAll(t, ctx, r.leases)
	semNoNodes(t, obs)

	// Nothing is held: a new lease is free.
	l, err := s.TryAcquire(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
	semNoNodes(t, obs)
}

// TestSemaphoreInterruptAcquire is Curator's testInterruptAcquire: a waiter
// whose context is cancelled returns its error and leaves no node, neither
// in leases/ nor in locks/: the one waiting for a lease (holding the locks
// mutex) and the one queued behind it for the mutex.
func TestSemaphoreInterruptAcquire(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	_, holder := semStuckHolder(t, ctx, ns, 1)
	only := []string{path.Base(holder.Node())}
	first := semNew(t, connect(t, clientOpts{ns: ns}), 1)
	second := semNew(t, connect(t, clientOpts{ns: ns}), 1)

	fctx, fcancel := context.WithCancel(ctx)
	defer fcancel()
	fres := semAcquireAsync(fctx, first, 1)
	semWaiting(t, obs, 2) // first waits for a lease, holding the mutex
	lock := children(t, obs, semLocks)

	sctx, scancel := context.WithCancel(ctx)
	defer scancel()
	sres := semAcquireAsync(sctx, second, 1)
	waitChildren(t, obs, semLocks, 2) // second waits for the mutex

	scancel()
	require.ErrorIs(t, await(t, sres, 10*time.Second, "second").err, context.Canceled)
	require.Equal(t, lock, children(t, obs, semLocks), "the cancelled mutex waiter left its node")
	require.Len(t, children(t, obs, semLeases), 2)

	fcancel()
	require.ErrorIs(t, await(t, fres, 10*time.Second, "first").err, context.Canceled)
	require.Equal(t, only, children(t, obs, semLeases), "the cancelled lease waiter left its lease node")
	require.Empty(t, children(t, obs, semLocks), "the cancelled lease waiter left its mutex node")

	// With a deadline instead, and several leases asked for.
	s := semNew(t, connect(t, clientOpts{ns: ns}), 3)
	two, err := s.AcquireN(ctx, 2)
	require.NoError(t, err)
	dctx, dcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer dcancel()
	_, err = s.AcquireN(dctx, 2) // 1 + 2 + 2 > 3
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, children(t, obs, semLeases), 3, "the timed-out AcquireN left lease nodes")
	require.Empty(t, children(t, obs, semLocks))
	semReleaseAll(t, ctx, append(two, holder))
	semNoNodes(t, obs)
}

// TestSemaphoreWaiterSessionLost: a waiter whose session is lost (its link
// is cut past the session timeout) tries again in a new session, and gets
// its lease once the holder releases. Its old nodes are gone.
func TestSemaphoreWaiterSessionLost(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	_, holder := semStuckHolder(t, ctx, ns, 1)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: time.Second})
	s := semNew(t, c, 1)
	sess, err := c.WaitSession(ctx)
	require.NoError(t, err)

	res := semAcquireAsync(ctx, s, 1)
	old := semWaiting(t, obs, 2)
	link.Cut()
	require.True(t, waitClosed(sess.Done(), 10*time.Second), "the session was not lost")
	// Restore the link only once the server has expired the session too (its
	// lease node is gone): go-zookeeper's old connection could otherwise
	// resume it, and its re-sent watches race with replies inside
	// go-zookeeper (conn.go: sendSetWatches reads lastZxid while recvLoop
	// writes it), which -race reports.
	eventually(t, 20*time.Second, "the server to expire the waiter's session", func() bool {
		return len(children(t, obs, semLeases)) == 1
	})
	link.Restore()
	// The waiter queues again in a new session.
	eventually(t, 20*time.Second, "the waiter's new lease node", func() bool {
		kids := children(t, obs, semLeases)
		return len(kids) == 2 && !slices.Equal(kids, old)
	})
	pending(t, res, 100*time.Millisecond, "the waiter while the lease is held")
	require.NoError(t, holder.Release(ctx))
	r := await(t, res, 10*time.Second, "the waiter after the release")
	require.NoError(t, r.err)
	require.NotSame(t, sess, c.Session())
	semReleaseAll(t, ctx, r.leases)
	semNoNodes(t, obs)
}

// TestSemaphoreWaiterLosesLocksMutex deletes the locks-mutex node of an
// acquirer that waits for a lease: another acquirer could now wait beside
// it, so it gives its lease node up and starts again (new lock node, new
// lease node); after the holder's release it holds, and nothing is left.
func TestSemaphoreWaiterLosesLocksMutex(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	_, holder := semStuckHolder(t, ctx, ns, 1)
	res := semAcquireAsync(ctx, semNew(t, connect(t, clientOpts{ns: ns}), 1), 1)
	leases := semWaiting(t, obs, 2)
	lock := children(t, obs, semLocks)
	require.NoError(t, obs.Delete(ctx, path.Join(semLocks, lock[0]), -1))
	eventually(t, 10*time.Second, "the waiter's new lock and lease nodes", func() bool {
		locks, kids := children(t, obs, semLocks), children(t, obs, semLeases)
		return len(locks) == 1 && locks[0] != lock[0] && len(kids) == 2 && !slices.Equal(kids, leases)
	})
	pending(t, res, 100*time.Millisecond, "the waiter while the lease is held")
	require.NoError(t, holder.Release(ctx))
	r := await(t, res, 10*time.Second, "the waiter after the release")
	require.NoError(t, r.err)
	semReleaseAll(t, ctx, r.leases)
	semNoNodes(t, obs)
}
