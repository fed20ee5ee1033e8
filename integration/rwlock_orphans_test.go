package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRWLockNoOrphans: waits that end with their context, as a reader and as
// a writer, delete the nodes they created, so only the holder's node is
// left; once everyone has released, the server removes the (container)
// directory itself.
func TestRWLockNoOrphans(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, _ := rwHandle(t, clientOpts{ns: ns})
	c, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.Lock(ctx))
	holder := children(t, obs, rwDir)
	require.Len(t, holder, 1)

	short := func() context.Context {
		ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	require.ErrorIs(t, b.RLock(short()), context.DeadlineExceeded, "reader behind a writer")
	require.ErrorIs(t, c.Lock(short()), context.DeadlineExceeded, "writer behind a writer")
	require.Equal(t, holder, children(t, obs, rwDir), "a cancelled wait left its node")

	// Cancelled rather than timed out, with both a reader and a writer waiting.
	cctx, cancel := context.WithCancel(ctx)
	bGot := rwAsync(cctx, b.RLock)
	cGot := rwAsync(cctx, c.Lock)
	waitChildren(t, obs, rwDir, 3)
	cancel()
	require.ErrorIs(t, await(t, bGot, rwPatience, "reader b"), context.Canceled)
	require.ErrorIs(t, await(t, cGot, rwPatience, "writer c"), context.Canceled)
	require.Equal(t, holder, children(t, obs, rwDir), "a cancelled wait left its node")
	require.False(t, b.ReadLock().IsHeld())
	require.False(t, c.WriteLock().IsHeld())

	// A reader holds, a writer waits behind it and gives up: readers are not
	// kept waiting by a writer that is gone.
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, a.RLock(ctx))
	require.ErrorIs(t, c.Lock(short()), context.DeadlineExceeded, "writer behind a reader")
	require.NoError(t, b.TryRLock(ctx), "the cancelled writer still blocks readers")
	require.Len(t, children(t, obs, rwDir), 2)
	require.NoError(t, b.RUnlock(ctx))
	require.NoError(t, a.RUnlock(ctx))

	// A reader waiting behind a writer that gives up gets the lock: what
	// is left ahead of it is a reader.
	require.NoError(t, a.RLock(ctx))
	cctx, cancel = context.WithCancel(ctx)
	cGot = rwAsync(cctx, c.Lock)
	waitChildren(t, obs, rwDir, 2)
	bGot = rwAsync(ctx, b.RLock)
	waitChildren(t, obs, rwDir, 3)
	pending(t, bGot, rwQuiet, "reader b behind writer c")
	cancel()
	require.ErrorIs(t, await(t, cGot, rwPatience, "writer c"), context.Canceled)
	require.NoError(t, await(t, bGot, rwPatience, "reader b after writer c gave up"))
	require.NoError(t, b.RUnlock(ctx))
	require.NoError(t, a.RUnlock(ctx))

	// A writer waiting behind a writer that gives up waits on for the holder.
	d, _ := rwHandle(t, clientOpts{ns: ns})
	require.NoError(t, a.Lock(ctx))
	cctx, cancel = context.WithCancel(ctx)
	cGot = rwAsync(cctx, c.Lock)
	waitChildren(t, obs, rwDir, 2)
	dGot := rwAsync(ctx, d.Lock)
	waitChildren(t, obs, rwDir, 3)
	cancel()
	require.ErrorIs(t, await(t, cGot, rwPatience, "writer c"), context.Canceled)
	waitChildren(t, obs, rwDir, 2)
	pending(t, dGot, rwQuiet, "writer d behind holder a")
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, await(t, dGot, rwPatience, "writer d"))
	require.NoError(t, d.Unlock(ctx))

	// The handles that gave up work as before.
	require.NoError(t, c.Lock(ctx))
	require.NoError(t, c.Unlock(ctx))

	require.Eventually(t, func() bool {
		ok, _, err := obs.Exists(ctx, rwDir)
		return err == nil && !ok
	}, 10*time.Second, 50*time.Millisecond, "the empty lock directory was never removed")

	// Locking again builds the directory again.
	require.NoError(t, a.RLock(ctx))
	require.Len(t, children(t, obs, rwDir), 1)
	require.NoError(t, a.RUnlock(ctx))
}
