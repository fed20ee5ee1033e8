package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestRWLockWriterSessionExpires cuts a write holder off the server for
// longer than its session timeout while readers wait: the server expires the
// session and deletes its node, the readers get the lock, and the writer
// learns it lost the lock.
func TestRWLockWriterSessionExpires(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	link := newLink(t)
	w, wc := rwHandle(t, clientOpts{ns: ns, link: link, timeout: 1500 * time.Millisecond})
	require.NoError(t, w.Lock(ctx))
	wNode := w.WriteLock().Node()
	wLost := w.WriteLock().Lost()
	wSession := wc.Session().ID()

	r1, _ := rwHandle(t, clientOpts{ns: ns})
	r2, _ := rwHandle(t, clientOpts{ns: ns})
	got1 := rwAsync(ctx, r1.RLock)
	got2 := rwAsync(ctx, r2.RLock)
	waitChildren(t, obs, rwDir, 3)
	pending(t, got1, rwQuiet, "reader 1 behind the writer")

	link.Cut()
	// The server expires the session after its 1.5s timeout (give or take a
	// tick of 200ms); the readers wait for the deletion of the writer's node.
	require.NoError(t, await(t, got1, rwPatience, "reader 1"))
	require.NoError(t, await(t, got2, rwPatience, "reader 2"))
	require.True(t, waitClosed(wLost, 10*time.Second), "the cut-off writer's Lost never closed")

	kids := waitChildren(t, obs, rwDir, 2)
	for _, k := range kids {
		require.True(t, strings.Contains(k, rwlock.ReadLockName), "left: %v", kids)
		require.False(t, strings.HasSuffix(wNode, k), "the expired writer's node is still there")
	}
	ok, _, err := obs.Exists(ctx, wNode)
	require.NoError(t, err)
	require.False(t, ok, "the expired writer's node %s", wNode)

	// Back on the network, the writer has a new session, releases what it
	// lost, and can queue again behind the readers.
	link.Restore()
	require.Eventually(t, func() bool {
		s := wc.Session()
		return s != nil && s.ID() != wSession && s.Err() == nil
	}, 20*time.Second, 20*time.Millisecond, "the writer's client never got a new session")
	require.ErrorIs(t, w.Lock(rwUnderWrite(t, ctx, w)), zkrecipes.ErrLost, "a reentrant Lock on a lost holding")
	_ = w.Unlock(ctx) // its node is gone already; what matters is the handle is free again
	require.False(t, w.WriteLock().IsHeld())
	wGot := rwAsync(ctx, w.Lock)
	waitChildren(t, obs, rwDir, 3)
	pending(t, wGot, rwQuiet, "writer behind the readers")
	require.NoError(t, r1.RUnlock(ctx))
	require.NoError(t, r2.RUnlock(ctx))
	require.NoError(t, await(t, wGot, rwPatience, "writer"))
	require.NoError(t, w.Unlock(ctx))
}

// TestRWLockWaiterSessionExpires cuts a waiting reader off: its node goes
// with its session, but its RLock does not fail (it held nothing): once the
// link is back it queues again, at the back, and reads in its turn. The
// holder and the queue behind are unaffected.
func TestRWLockWaiterSessionExpires(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	w, _ := rwHandle(t, clientOpts{ns: ns})
	require.NoError(t, w.Lock(ctx))
	link := newLink(t)
	r, rc := rwHandle(t, clientOpts{ns: ns, link: link, timeout: 1500 * time.Millisecond})
	rGot := rwAsync(ctx, r.RLock)
	w2, _ := rwHandle(t, clientOpts{ns: ns})
	waitChildren(t, obs, rwDir, 2)
	w2Got := rwAsync(ctx, w2.Lock)
	waitChildren(t, obs, rwDir, 3)
	oldSession := rc.Session()

	link.Cut()
	require.Eventually(t, func() bool { return oldSession.Err() != nil }, 20*time.Second, 20*time.Millisecond,
		"the reader's client never gave its session up")
	kids := waitChildren(t, obs, rwDir, 2) // the server expired the reader's session
	for _, k := range kids {
		require.Contains(t, k, rwlock.WriteLockName)
	}
	pending(t, rGot, rwQuiet, "the cut-off reader (it held nothing, so it keeps trying)")
	link.Restore()
	kids = waitChildren(t, obs, rwDir, 3) // the reader queued again, behind writer 2
	readers := 0
	for _, k := range kids {
		if strings.Contains(k, rwlock.ReadLockName) {
			readers++
		}
	}
	require.Equal(t, 1, readers, "one read node (the requeued reader's) in %v", kids)
	require.False(t, r.ReadLock().IsHeld())

	pending(t, w2Got, rwQuiet, "writer 2 behind the holder")
	require.NoError(t, w.Unlock(ctx))
	require.NoError(t, await(t, w2Got, rwPatience, "writer 2"))
	pending(t, rGot, rwQuiet, "the requeued reader behind writer 2")
	require.NoError(t, w2.Unlock(ctx))
	require.NoError(t, await(t, rGot, rwPatience, "the requeued reader"))
	require.True(t, r.ReadLock().IsHeld())
	require.NoError(t, r.RUnlock(ctx))
}

// TestRWLockLostOnSuspension: by default both sides' Lost close as soon as
// the connection is suspended, even though the session survives (a reentrant
// acquire then reports ErrLost); with WithLostOnSessionLossOnly they stay
// open over a short outage.
func TestRWLockLostOnSuspension(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 8 * time.Second})
	sid := c.Session().ID()
	outage := func() {
		t.Helper()
		link.Cut()
		require.Eventually(t, func() bool { return c.State() == client.StateSuspended },
			5*time.Second, 5*time.Millisecond, "the client never noticed the cut")
		link.Restore()
		require.Eventually(t, func() bool { return c.State() == client.StateReconnected },
			10*time.Second, 10*time.Millisecond, "the client never reconnected")
		require.Equal(t, sid, c.Session().ID(), "the session did not survive the outage")
	}

	for _, lenient := range []bool{false, true} {
		var opts []rwlock.Option
		if lenient {
			opts = append(opts, rwlock.WithLostOnSessionLossOnly())
		}
		rw, err := rwlock.New(c, rwDir, opts...)
		require.NoError(t, err)
		require.NoError(t, rw.Lock(ctx))
		wctx, wcancel := rw.WriteLock().Context(ctx)
		require.NoError(t, rw.RLock(wctx)) // read under write: both sides hold
		rctx, rcancel := rw.ReadLock().Context(wctx)
		wLost, rLost := rw.WriteLock().Lost(), rw.ReadLock().Lost()
		require.False(t, closed(wLost), "write Lost before the outage")
		require.False(t, closed(rLost), "read Lost before the outage")

		outage()
		if lenient {
			require.False(t, closed(wLost), "lenient write Lost after a short outage")
			require.False(t, closed(rLost), "lenient read Lost after a short outage")
			require.NoError(t, rw.Lock(rctx), "reentrant write on a holding that was not lost")
			require.NoError(t, rw.RLock(rctx), "reentrant read on a holding that was not lost")
			require.NoError(t, rw.Unlock(ctx))
			require.NoError(t, rw.RUnlock(ctx))
		} else {
			require.True(t, waitClosed(wLost, 5*time.Second), "write Lost stayed open over a suspension")
			require.True(t, closed(rLost), "read Lost after a suspension")
			require.ErrorIs(t, rw.Lock(rctx), zkrecipes.ErrLost)
			require.ErrorIs(t, rw.RLock(rctx), zkrecipes.ErrLost)
		}
		// The session lived on, and so did the nodes: releasing removes them.
		// Released after a loss, each side says the holding was lost.
		require.Len(t, children(t, obs, rwDir), 2)
		if lenient {
			require.NoError(t, rw.Unlock(ctx))
			require.NoError(t, rw.RUnlock(ctx))
		} else {
			require.ErrorIs(t, rw.Unlock(ctx), zkrecipes.ErrLost)
			require.ErrorIs(t, rw.RUnlock(ctx), zkrecipes.ErrLost)
		}
		require.False(t, rw.WriteLock().IsHeld())
		require.False(t, rw.ReadLock().IsHeld())
		require.Empty(t, children(t, obs, rwDir))
		rcancel()
		wcancel()
	}
}

// TestRWLockNoDowngradeOnLostWrite: a handle whose write holding was lost
// with its session must not "downgrade" to a read: its write node is gone
// and another writer may hold the lock by now. A read node at the lost
// writer's old sequence number would sort before that writer and claim the
// lock beside it.
func TestRWLockNoDowngradeOnLostWrite(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	link := newLink(t)
	a, ac := rwHandle(t, clientOpts{ns: ns, link: link, timeout: 1500 * time.Millisecond})
	b, _ := rwHandle(t, clientOpts{ns: ns})
	require.NoError(t, a.Lock(ctx))
	aSession := ac.Session().ID()
	bGot := rwAsync(ctx, b.Lock)
	waitChildren(t, obs, rwDir, 2)

	link.Cut() // a's session expires on the server; b takes the write lock
	require.NoError(t, await(t, bGot, rwPatience, "writer b"))
	require.True(t, b.WriteLock().IsHeld())
	link.Restore()
	require.Eventually(t, func() bool {
		s := ac.Session()
		return s != nil && s.ID() != aSession && s.Err() == nil
	}, 20*time.Second, 20*time.Millisecond, "a's client never got a new session")
	require.False(t, a.WriteLock().IsHeld(), "a's holding was lost")
	require.NotEmpty(t, a.WriteLock().Node(), "a has not unlocked yet")
	require.True(t, closed(a.WriteLock().Lost()), "a's lost write holding")

	rctx, cancel := context.WithTimeout(rwUnderWrite(t, ctx, a), time.Second)
	defer cancel()
	err := a.RLock(rctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	held := a.ReadLock().IsHeld()
	kids := children(t, obs, rwDir)
	if held {
		_ = a.RUnlock(ctx)
	}
	require.Error(t, err, "a read on a lost write holding while b writes: nodes %v", kids)
	require.False(t, held, "a reads while b writes")
	require.Len(t, kids, 1, "only b's node: %v", kids)
	require.NoError(t, b.Unlock(ctx))
	_ = a.Unlock(ctx)
}
