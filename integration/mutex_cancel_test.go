package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestMutexContextEndsWhileWaiting has a waiter's context end (deadline, then
// cancellation) while it waits behind a holder: Lock returns ctx's error, and
// by then the waiter's node is gone, leaving only the holder's. The handle can
// lock again afterwards.
func TestMutexContextEndsWhileWaiting(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	holder := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	waiter := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, holder.Lock(ctx))
	onlyHolder := []string{mxBase(holder.Node())}

	t.Run("deadline", func(t *testing.T) {
		wctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		defer cancel()
		res := mxLockAsync(wctx, waiter)
		mxWaitQueued(t, holder, 2) // it did queue before the deadline
		r := await(t, res, 10*time.Second, "waiter")
		require.ErrorIs(t, r.err, context.DeadlineExceeded)
		require.Equal(t, onlyHolder, children(t, obs, mxLockPath), "the waiter's node was left behind")
	})
	t.Run("cancel", func(t *testing.T) {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		res := mxLockAsync(wctx, waiter)
		mxWaitQueued(t, holder, 2)
		time.Sleep(50 * time.Millisecond) // let it settle into waiting
		cancel()
		r := await(t, res, 10*time.Second, "waiter")
		require.ErrorIs(t, r.err, context.Canceled)
		require.Equal(t, onlyHolder, children(t, obs, mxLockPath), "the waiter's node was left behind")
	})
	t.Run("already ended", func(t *testing.T) {
		wctx, cancel := context.WithCancel(ctx)
		cancel()
		require.ErrorIs(t, waiter.Lock(wctx), context.Canceled)
		require.ErrorIs(t, waiter.TryLock(wctx), context.Canceled)
		require.Equal(t, onlyHolder, children(t, obs, mxLockPath))
	})

	require.False(t, waiter.IsHeld())
	require.True(t, closed(waiter.Lost()))
	require.True(t, holder.IsHeld())
	require.False(t, closed(holder.Lost()), "the waiter's exit disturbed the holder")

	res := mxLockAsync(ctx, waiter)
	mxWaitQueued(t, holder, 2)
	require.NoError(t, holder.Unlock(ctx))
	require.NoError(t, await(t, res, 10*time.Second, "waiter after release").err)
	require.NoError(t, waiter.Unlock(ctx))
}

// TestMutexCancelDuringCreate cancels a Lock while its create is on the
// wire: the server makes the node but the reply never arrives (the link
// drops it and then closes the connection). Lock returns the cancellation,
// and the node the server made must not be left behind. The parent's child
// version proves the node was created (and deleted) on the server.
func TestMutexCancelDuringCreate(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	holder := mxNew(t, obs, mxLockPath)
	require.NoError(t, holder.Lock(ctx)) // keeps the directory in place
	_, before, err := obs.Children(ctx, mxLockPath)
	require.NoError(t, err)

	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	m := mxNew(t, c, mxLockPath)
	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-fired:
			cancel()
		case <-lctx.Done():
		}
	}()
	err = m.Lock(lctx)
	require.True(t, closed(fired), "the create never went out (err %v)", err)
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, m.IsHeld())

	kids, after, err := obs.Children(ctx, mxLockPath)
	require.NoError(t, err)
	require.Equal(t, []string{mxBase(holder.Node())}, kids, "the node whose create was cancelled was left behind")
	require.Equal(t, before.Cversion+2, after.Cversion,
		"expected exactly one create and one delete of a child (cversion %d -> %d)", before.Cversion, after.Cversion)

	// The client recovered its session and works.
	res := mxLockAsync(ctx, m)
	mxWaitQueued(t, holder, 2)
	require.NoError(t, holder.Unlock(ctx))
	require.NoError(t, await(t, res, 10*time.Second, "lock after the dropped create").err)
	require.NoError(t, m.Unlock(ctx))
}
