package integration

import (
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// TestSemaphoreMutex: the semaphore mutex (Curator's
// InterProcessSemaphoreMutex) on the semaphore layout: one holder, TryLock
// fails with ErrLocked, not reentrant, Unlock from any goroutine, and it is
// a mutex.Locker.
func TestSemaphoreMutex(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	m1, err := semaphore.NewMutex(connect(t, clientOpts{ns: ns}), semPath)
	require.NoError(t, err)
	m2, err := semaphore.NewMutex(connect(t, clientOpts{ns: ns}), semPath)
	require.NoError(t, err)

	require.NoError(t, m1.Lock(ctx))
	require.True(t, m1.IsHeld())
	require.Equal(t, semLeases, path.Dir(m1.Node()))
	tok, err := m1.Token(ctx)
	require.NoError(t, err)
	require.Positive(t, tok)
	err = m2.TryLock(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLocked)
	require.ErrorIs(t, err, zkrecipes.ErrLocked)
	require.ErrorIs(t, err, semaphore.ErrNoLeases)
	require.False(t, m2.IsHeld())
	require.True(t, closed(m2.Lost()))
	_, err = m2.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrNotHeld)
	require.ErrorIs(t, m2.Unlock(ctx), zkrecipes.ErrNotHeld)

	// Not reentrant: a second Lock of the same handle waits for the Unlock,
	// which may come from another goroutine.
	res := make(chan error, 1)
	go func() { res <- m1.Lock(ctx) }()
	semWaiting(t, obs, 2)
	pending(t, res, 100*time.Millisecond, "a second Lock of the handle")
	lost := m1.Lost()
	require.NoError(t, m1.Unlock(ctx))
	require.True(t, closed(lost))
	require.NoError(t, await(t, res, 10*time.Second, "the second Lock"))
	require.NoError(t, m1.Unlock(ctx))
	require.ErrorIs(t, m1.Unlock(ctx), zkrecipes.ErrNotHeld)

	// As a sync.Locker shared by goroutines.
	var l sync.Locker = mutex.NewSyncLocker(m2, func(err error) { t.Error(err) })
	counter := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Lock()
			counter++
			l.Unlock()
		}()
	}
	wg.Wait()
	require.Equal(t, 4, counter)
	semNoNodes(t, obs)

	var zero semaphore.Mutex
	require.ErrorIs(t, zero.Lock(ctx), zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, zero.TryLock(ctx), zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, zero.Unlock(ctx), zkrecipes.ErrInvalidArgument)
	_, err = zero.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	require.True(t, closed(zero.Lost()))
	require.False(t, zero.IsHeld())
	require.Empty(t, zero.Node())
	require.Nil(t, zero.Semaphore())
}
