package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestRWLockDowngrade takes the read lock while holding the write lock, then
// releases the write lock: the handle still reads, and a writer that queued
// while the write lock was held stays blocked until the read is released.
func TestRWLockDowngrade(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, _ := rwHandle(t, clientOpts{ns: ns})
	c, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.Lock(ctx))
	writeNode := a.WriteLock().Node()
	bGot := rwAsync(ctx, b.Lock) // queues behind a's write node
	waitChildren(t, obs, rwDir, 2)

	require.NoError(t, a.RLock(rwUnderWrite(t, ctx, a)), "downgrade must not wait")
	readNode := a.ReadLock().Node()
	require.True(t, strings.HasSuffix(readNode, rwSequenceSuffix(t, writeNode)),
		"read node %s takes the writer's place %s", readNode, writeNode)
	waitChildren(t, obs, rwDir, 3)

	require.NoError(t, a.Unlock(ctx))
	require.False(t, a.WriteLock().IsHeld())
	require.True(t, a.ReadLock().IsHeld())
	waitChildren(t, obs, rwDir, 2)
	pending(t, bGot, rwQuiet, "writer queued during the downgrade")

	// A writer queued after the downgrade is blocked too, and so is a reader
	// behind that writer; a reader queued behind the downgraded read alone is not.
	require.ErrorIs(t, c.TryLock(ctx), zkrecipes.ErrLocked)
	require.ErrorIs(t, c.TryRLock(ctx), zkrecipes.ErrLocked, "writer b is queued ahead")
	waitChildren(t, obs, rwDir, 2)

	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, await(t, bGot, rwPatience, "writer b"))
	require.True(t, b.WriteLock().IsHeld())
	require.NoError(t, b.Unlock(ctx))
	require.Empty(t, children(t, obs, rwDir))
}

// TestRWLockDowngradeThenQueue queues a writer after the downgrade, while the
// write lock is still held, and a reader behind the writer only.
func TestRWLockDowngradeThenQueue(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.Lock(ctx))
	require.NoError(t, a.RLock(rwUnderWrite(t, ctx, a)))
	bGot := rwAsync(ctx, b.Lock)
	waitChildren(t, obs, rwDir, 3)
	pending(t, bGot, rwQuiet, "writer b")
	require.NoError(t, a.Unlock(ctx))
	pending(t, bGot, rwQuiet, "writer b after a's write release")
	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, await(t, bGot, rwPatience, "writer b"))
	require.NoError(t, b.Unlock(ctx))
}

// TestRWLockUpgrade: taking the write lock while holding only the read lock
// fails at once with ErrUpgrade, and leaves no node behind.
func TestRWLockUpgrade(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.RLock(ctx))
	before := children(t, obs, rwDir)
	require.Len(t, before, 1)

	// The goroutine that holds the read lock (its context carries it) asks
	// for the write lock: a waiting Lock would run into ctx's deadline;
	// ErrUpgrade must come first.
	rctx, rcancel := a.ReadLock().Context(ctx)
	defer rcancel()
	upCtx, upCancel := context.WithTimeout(rctx, 10*time.Second)
	defer upCancel()
	require.ErrorIs(t, a.Lock(upCtx), zkrecipes.ErrUpgrade)
	require.NoError(t, upCtx.Err(), "Lock waited instead of failing at once")
	require.ErrorIs(t, a.TryLock(rctx), zkrecipes.ErrUpgrade)
	require.ErrorIs(t, a.WriteLock().Lock(rctx), zkrecipes.ErrUpgrade)
	// Another goroutine (no such context) would wait, as with sync.RWMutex;
	// its TryLock says the handle is busy here.
	var le *zkrecipes.LockedError
	require.ErrorAs(t, a.TryLock(ctx), &le)
	require.True(t, le.Local)
	require.False(t, a.WriteLock().IsHeld())
	require.Equal(t, before, children(t, obs, rwDir), "a failed upgrade left a node")

	// The read lock is untouched, and after it the write lock is available.
	require.True(t, a.ReadLock().IsHeld())
	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, a.Lock(ctx))
	require.NoError(t, a.Unlock(ctx))
}

// rwSequenceSuffix returns the marker and the 10 digits a write node ends with.
func rwSequenceSuffix(t *testing.T, writeNode string) string {
	t.Helper()
	i := strings.LastIndex(writeNode, rwlock.WriteLockName)
	require.GreaterOrEqual(t, i, 0, "not a write node: %s", writeNode)
	digits := writeNode[i+len(rwlock.WriteLockName):]
	require.Len(t, digits, 10)
	return rwlock.ReadLockName + digits
}
