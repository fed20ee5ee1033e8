package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/stretchr/testify/require"
)

// TestRWLockConcurrentDowngrade: two goroutines downgrade the one write
// holding of a shared handle at once. Exactly one succeeds; the other fails
// and holds nothing, so one RUnlock leaves the handle and the directory
// empty and a later Lock works (before the fix, the loser returned an error
// while keeping a read level, and the read node stayed for good).
func TestRWLockConcurrentDowngrade(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	for round := 0; round < 10; round++ {
		rw, _ := rwHandle(t, clientOpts{ns: ns})
		require.NoError(t, rw.Lock(ctx))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = rw.Downgrade(ctx)
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			}
		}
		require.Equal(t, 1, ok, "round %d: exactly one Downgrade succeeds: %v", round, errs)
		require.False(t, rw.WriteLock().IsHeld(), "round %d", round)
		require.NoError(t, rw.RUnlock(ctx), "round %d", round)
		require.False(t, rw.ReadLock().IsHeld(), "round %d: a read level outlived the failed Downgrade", round)
		require.Empty(t, children(t, obs, rwDir), "round %d: nodes left", round)
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		require.NoError(t, rw.Lock(tctx), "round %d: the write lock after the downgrade race", round)
		cancel()
		require.NoError(t, rw.Unlock(ctx))
	}
}

// TestRWLockDowngradeBadInput: Downgrade without a write holding, with a
// nil context, and on a reentered write holding fails with a typed error
// and changes nothing.
func TestRWLockDowngradeBadInput(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	rw, _ := rwHandle(t, clientOpts{ns: ns})
	require.ErrorIs(t, rw.Downgrade(ctx), zkrecipes.ErrNotHeld)
	require.NoError(t, rw.Lock(ctx))
	//lint:ignore SA1012 a nil context is the bad input under test
	require.ErrorIs(t, rw.Downgrade(nil), zkrecipes.ErrInvalidArgument) //nolint:staticcheck
	wctx, cancel := rw.WriteLock().Context(ctx)
	defer cancel()
	require.NoError(t, rw.Lock(wctx)) // reentered: two levels
	require.ErrorIs(t, rw.Downgrade(ctx), zkrecipes.ErrInvalidArgument)
	require.True(t, rw.WriteLock().IsHeld())
	require.False(t, rw.ReadLock().IsHeld())
	require.Len(t, children(t, obs, rwDir), 1)
	require.NoError(t, rw.Unlock(ctx))
	require.NoError(t, rw.Downgrade(ctx))
	require.NoError(t, rw.RUnlock(ctx))
	require.Empty(t, children(t, obs, rwDir))
}
