package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// Goroutines sharing ONE handle exclude each other, as
// with sync.Mutex and sync.RWMutex; reentrancy and downgrade only where the
// holding is passed on explicitly.

// TestSafetySharedHandleExcludes is Curator's testReentrantSingleLock ported
// to one shared handle: 10 goroutines lock the same *mutex.Mutex 20 times
// each. Never more than one is inside, and while one is inside the lock
// directory holds exactly one node (the others wait in the process).
func TestSafetySharedHandleExcludes(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	m := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	const goroutines, rounds = 10, 20
	var inside, maxInside, extraNodes atomic.Int64
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if err := m.Lock(ctx); err != nil {
					errs <- fmt.Errorf("goroutine %d round %d: Lock: %w", g, i, err)
					return
				}
				n := inside.Add(1)
				for {
					old := maxInside.Load()
					if n <= old || maxInside.CompareAndSwap(old, n) {
						break
					}
				}
				if i%5 == 0 {
					if kids, err := tryChildren(obs, mxLockPath); err != nil || len(kids) != 1 {
						extraNodes.Add(1)
						t.Logf("goroutine %d round %d inside: children %v (err %v)", g, i, kids, err)
					}
				}
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				if err := m.Unlock(ctx); err != nil {
					errs <- fmt.Errorf("goroutine %d round %d: Unlock: %w", g, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Equal(t, int64(1), maxInside.Load(), "goroutines sharing one handle were inside together")
	require.Zero(t, extraNodes.Load(), "the lock directory did not hold exactly one node while a goroutine was inside")
	require.False(t, m.IsHeld())
	require.Empty(t, children(t, obs, mxLockPath))
}

// TestSafetySharedHandleTryLock is kazoo's test_lock_many_threads_no_block
// on one handle: while the main goroutine holds it, 20 goroutines' TryLock
// (and the holder's own) fail with a local *LockedError, a plain Lock waits
// until its context ends, and none of them touches ZooKeeper: the directory
// keeps exactly its one node and its child version.
func TestSafetySharedHandleTryLock(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	m := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, m.Lock(ctx))
	node := m.Node()
	_, before, err := obs.Children(ctx, mxLockPath)
	require.NoError(t, err)

	const n = 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.TryLock(ctx)
		}()
	}
	wg.Wait()
	wins := 0
	for i, err := range errs {
		if err == nil {
			wins++
			continue
		}
		require.ErrorIs(t, err, zkrecipes.ErrLocked, "TryLock %d", i)
		var le *zkrecipes.LockedError
		require.ErrorAs(t, err, &le, "TryLock %d", i)
		require.True(t, le.Local, "TryLock %d: %v", i, err)
	}
	require.Zero(t, wins, "TryLocks on a held handle succeeded")

	err = m.TryLock(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLocked, "TryLock by the holding goroutine itself (no goroutine identity, as sync.Mutex)")
	wctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, m.Lock(wctx), context.DeadlineExceeded, "a plain Lock on a held handle must wait")

	kids, after, err := obs.Children(ctx, mxLockPath)
	require.NoError(t, err)
	require.Equal(t, []string{mxBase(node)}, kids)
	require.Equal(t, before.Cversion, after.Cversion, "nodes were created (and deleted) in the lock directory")
	require.True(t, m.IsHeld())
	require.Equal(t, node, m.Node())
	require.NoError(t, m.Unlock(ctx))
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld)
}

// TestSafetySharedHandleUnlockElsewhere: a goroutine other than the one that
// locked unlocks, as with sync.Mutex; the node goes and another client wins.
func TestSafetySharedHandleUnlockElsewhere(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	m := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	require.NoError(t, <-done)
	node := m.Node()
	go func() { done <- m.Unlock(ctx) }()
	require.NoError(t, <-done)
	require.False(t, m.IsHeld())
	require.False(t, exists(t, obs, node))
	other := mxNew(t, obs, mxLockPath)
	require.NoError(t, other.TryLock(ctx))
	require.NoError(t, other.Unlock(ctx))
}

// TestSafetyTryLockNamesOtherHolder: TryLock on a lock another client holds
// returns a *LockedError naming the holder's node and data, and leaves no
// node behind.
func TestSafetyTryLockNamesOtherHolder(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath, mutex.WithData([]byte("host-a")))
	b := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, a.Lock(ctx))

	err := b.TryLock(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLocked)
	var le *zkrecipes.LockedError
	require.ErrorAs(t, err, &le)
	require.False(t, le.Local, "another client's holding is not local")
	require.Equal(t, a.Node(), le.Node)
	require.Equal(t, []byte("host-a"), le.Data)
	require.Equal(t, []string{mxBase(a.Node())}, children(t, obs, mxLockPath))
	require.NoError(t, a.Unlock(ctx))
}

// TestSafetyReentrancyThroughContext: Lock with a context from the holding's
// Context reenters at once (no node is touched) and needs one more Unlock;
// meanwhile a plain Lock from another goroutine waits for both Unlocks. The
// holding's context ends, with cause ErrNotHeld, at the release.
func TestSafetyReentrancyThroughContext(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	m := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, m.Lock(ctx))
	node := m.Node()
	_, before, err := obs.Children(ctx, mxLockPath)
	require.NoError(t, err)

	hctx, hcancel := m.Context(ctx)
	defer hcancel()
	rctx, rcancel := context.WithTimeout(hctx, 5*time.Second) // a child reenters too
	defer rcancel()
	require.NoError(t, m.Lock(rctx), "Lock with the holding's context must reenter at once")
	_, after, err := obs.Children(ctx, mxLockPath)
	require.NoError(t, err)
	require.Equal(t, before.Cversion, after.Cversion, "reentry touched the lock directory")

	res := mxLockAsync(ctx, m) // a plain context: waits like any other goroutine
	time.Sleep(rwQuiet)
	pending(t, res, 0, "plain Lock while the handle is held twice")

	require.NoError(t, m.Unlock(ctx))
	require.True(t, m.IsHeld(), "released after 1 of 2 Unlocks")
	require.Equal(t, node, m.Node())
	require.False(t, closed(hctx.Done()), "the holding's context ended while it is still held")
	time.Sleep(rwQuiet)
	pending(t, res, 0, "plain Lock after 1 of 2 Unlocks")

	require.NoError(t, m.Unlock(ctx))
	require.True(t, waitClosed(hctx.Done(), 5*time.Second), "the holding's context did not end at the release")
	require.ErrorIs(t, context.Cause(hctx), zkrecipes.ErrNotHeld)
	require.NoError(t, await(t, res, 10*time.Second, "plain Lock after both Unlocks").err)
	require.True(t, m.IsHeld())
	require.NotEqual(t, node, m.Node(), "the new holding has its own node")
	require.NoError(t, m.Unlock(ctx))
}

// TestSafetySharedRWLockReaders: goroutines RLock-ing one handle are inside
// together on one read node; the handle's writer waits for all of them in
// the process (no node of its own), and a reader arriving while that writer
// waits queues behind it.
func TestSafetySharedRWLockReaders(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	rw, _ := rwHandle(t, clientOpts{ns: ns})

	const readers = 5
	var inside atomic.Int64
	release := make([]chan struct{}, readers)
	done := make(chan error, readers)
	for i := range readers {
		release[i] = make(chan struct{})
		go func() {
			if err := rw.RLock(ctx); err != nil {
				done <- fmt.Errorf("reader %d: RLock: %w", i, err)
				return
			}
			inside.Add(1)
			<-release[i]
			inside.Add(-1)
			done <- rw.RUnlock(ctx)
		}()
	}
	require.Eventually(t, func() bool { return inside.Load() == readers }, 10*time.Second, 10*time.Millisecond,
		"readers of one handle are not inside together")
	kids := children(t, obs, rwDir)
	require.Len(t, kids, 1, "readers of one handle share one node: %v", kids)
	require.Contains(t, kids[0], rwlock.ReadLockName)

	wres := rwAsync(ctx, rw.Lock)
	pending(t, wres, rwQuiet, "the handle's writer while its readers hold")
	require.Equal(t, kids, children(t, obs, rwDir), "the handle's waiting writer made a node")
	late := rwAsync(ctx, rw.RLock)
	pending(t, late, rwQuiet, "a new reader while the handle's writer waits")

	for i := range readers - 1 {
		close(release[i])
		require.NoError(t, await(t, done, rwPatience, "RUnlock"))
	}
	pending(t, wres, rwQuiet, "the handle's writer while one reader still holds")
	close(release[readers-1])
	require.NoError(t, await(t, done, rwPatience, "last RUnlock"))

	require.NoError(t, await(t, wres, rwPatience, "the handle's writer"))
	require.True(t, rw.WriteLock().IsHeld())
	kids = waitChildren(t, obs, rwDir, 1)
	require.Contains(t, kids[0], rwlock.WriteLockName)
	pending(t, late, rwQuiet, "a reader while the handle holds the write lock")
	require.NoError(t, rw.Unlock(ctx))
	require.NoError(t, await(t, late, rwPatience, "the late reader"))
	require.True(t, rw.ReadLock().IsHeld())
	require.NoError(t, rw.RUnlock(ctx))
	waitChildren(t, obs, rwDir, 0)
}

// TestSafetySharedRWLockReaderWaitsForWriter: while a handle holds the write
// lock, another goroutine's RLock on that handle waits and its TryRLock fails
// (the old bug: both succeeded at once); after Unlock the reader gets in.
func TestSafetySharedRWLockReaderWaitsForWriter(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	rw, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, rw.Lock(ctx))
	var inRead atomic.Bool
	rres := rwAsync(ctx, func(ctx context.Context) error {
		err := rw.RLock(ctx)
		inRead.Store(err == nil)
		return err
	})
	pending(t, rres, rwQuiet, "another goroutine's RLock while the handle holds the write lock")
	require.ErrorIs(t, rw.TryRLock(ctx), zkrecipes.ErrLocked, "TryRLock while the handle holds the write lock")
	require.False(t, inRead.Load())

	require.NoError(t, rw.Unlock(ctx))
	require.NoError(t, await(t, rres, rwPatience, "RLock after Unlock"))
	require.True(t, rw.ReadLock().IsHeld())
	require.False(t, rw.WriteLock().IsHeld())
	kids := waitChildren(t, obs, rwDir, 1)
	require.Contains(t, kids[0], rwlock.ReadLockName)
	require.NoError(t, rw.RUnlock(ctx))
	waitChildren(t, obs, rwDir, 0)
}

// TestSafetyDowngrade: Downgrade turns the write holding into a read holding
// at the writer's place, with the writer's token; one node remains.
func TestSafetyDowngrade(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	rw, _ := rwHandle(t, clientOpts{ns: ns})

	require.ErrorIs(t, rw.Downgrade(ctx), zkrecipes.ErrNotHeld)
	require.NoError(t, rw.Lock(ctx))
	writeNode := rw.WriteLock().Node()
	wtok, err := rw.WriteLock().Token(ctx)
	require.NoError(t, err)

	require.NoError(t, rw.Downgrade(ctx))
	require.True(t, rw.ReadLock().IsHeld())
	require.False(t, rw.WriteLock().IsHeld())
	kids := waitChildren(t, obs, rwDir, 1)
	require.True(t, strings.HasSuffix(kids[0], rwSequenceSuffix(t, writeNode)),
		"the read node %s should carry the writer's sequence (%s)", kids[0], writeNode)
	rtok, err := rw.ReadLock().Token(ctx)
	require.NoError(t, err)
	require.Equal(t, wtok, rtok, "the downgraded read holding carries the writer's token")
	_, err = rw.WriteLock().Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrNotHeld)
	require.ErrorIs(t, rw.Unlock(ctx), zkrecipes.ErrNotHeld)

	require.NoError(t, rw.RUnlock(ctx))
	require.False(t, rw.ReadLock().IsHeld())
	waitChildren(t, obs, rwDir, 0)
}

// TestSafetyUpgradeRefused: Lock with a context carrying the handle's read
// holding fails at once with ErrUpgrade and makes no node.
func TestSafetyUpgradeRefused(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	rw, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, rw.RLock(ctx))
	rctx, cancel := rw.ReadLock().Context(ctx)
	defer cancel()
	lctx, lcancel := context.WithTimeout(rctx, 5*time.Second)
	defer lcancel()
	err := rw.Lock(lctx)
	require.ErrorIs(t, err, zkrecipes.ErrUpgrade)
	require.False(t, errors.Is(err, context.DeadlineExceeded), "ErrUpgrade must come at once, not at the deadline")
	require.False(t, rw.WriteLock().IsHeld())
	kids := children(t, obs, rwDir)
	require.Len(t, kids, 1)
	require.Contains(t, kids[0], rwlock.ReadLockName)
	require.NoError(t, rw.RUnlock(ctx))
	waitChildren(t, obs, rwDir, 0)
}
