package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

func TestRWLockSmoke(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	a, err := rwlock.New(connect(t, clientOpts{ns: ns}), "/rw")
	require.NoError(t, err)
	b, err := rwlock.New(connect(t, clientOpts{ns: ns}), "/rw")
	require.NoError(t, err)

	require.NoError(t, a.RLock(ctx))
	require.NoError(t, b.TryRLock(ctx), "readers share")
	bctx, bcancel := b.ReadLock().Context(ctx)
	require.ErrorIs(t, b.TryLock(bctx), zkrecipes.ErrUpgrade)
	bcancel()
	require.NoError(t, b.RUnlock(ctx))
	require.ErrorIs(t, b.TryLock(ctx), zkrecipes.ErrLocked, "a reader holds")
	require.NoError(t, a.RUnlock(ctx))

	// Downgrade: write, then read, then release write: still reading, writers blocked.
	require.NoError(t, a.Lock(ctx))
	require.NoError(t, a.Downgrade(ctx))
	require.False(t, a.WriteLock().IsHeld())
	require.ErrorIs(t, b.TryLock(ctx), zkrecipes.ErrLocked)
	require.NoError(t, b.TryRLock(ctx))
	require.NoError(t, b.RUnlock(ctx))
	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, b.TryLock(ctx))
	require.NoError(t, b.Unlock(ctx))
}
