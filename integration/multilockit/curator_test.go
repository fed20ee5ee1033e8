package multilockit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The ports of Curator's TestInterProcessMultiMutex (a multi-lock of two
// InterProcessMutexes at /locks/our-lock-1 and -2, run through
// TestInterProcessMutexBase's scenarios too), one Go test per Java test.

const (
	lockPath1 = "/locks/our-lock-1"
	lockPath2 = "/locks/our-lock-2"
)

// fakeLock is a Locker whose calls the test decides, as the anonymous
// InterProcessLocks of Curator's tests.
type fakeLock struct {
	path    string
	lock    func(ctx context.Context) error
	unlock  func(ctx context.Context) error
	token   func(ctx context.Context) (int64, error)
	lostCh  func() <-chan struct{}
	tryLock func(ctx context.Context) error
}

func (f *fakeLock) Lock(ctx context.Context) error    { return f.lock(ctx) }
func (f *fakeLock) TryLock(ctx context.Context) error { return f.tryLock(ctx) }
func (f *fakeLock) Unlock(ctx context.Context) error  { return f.unlock(ctx) }
func (f *fakeLock) Lost() <-chan struct{}             { return f.lostCh() }
func (f *fakeLock) Token(ctx context.Context) (int64, error) {
	return f.token(ctx)
}
func (f *fakeLock) Path() string { return f.path }

var errFoo = errors.New("foo")

// TestSomeReleasesFail: a set of a good mutex and a lock whose release
// fails: Unlock fails (naming that lock's path and its error), having
// released the good one all the same; the failing one's own mutex stays
// held, as in Curator.
func TestSomeReleasesFail(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	good, err := mutex.New(c, lockPath1)
	require.NoError(t, err)
	otherGood, err := mutex.New(c, lockPath2)
	require.NoError(t, err)
	bad := &fakeLock{
		path:    lockPath2,
		lock:    otherGood.Lock,
		tryLock: otherGood.TryLock,
		unlock:  func(context.Context) error { return errFoo },
		token:   otherGood.Token,
		lostCh:  otherGood.Lost,
	}
	m, err := mutex.NewMultiOf(good, bad)
	require.NoError(t, err)
	require.NoError(t, m.Lock(ctx))
	require.True(t, good.IsHeld() && otherGood.IsHeld() && m.IsHeld())
	err = m.Unlock(ctx)
	require.ErrorIs(t, err, errFoo)
	require.ErrorContains(t, err, lockPath2)
	require.False(t, good.IsHeld(), "the good lock was released")
	require.True(t, otherGood.IsHeld(), "the bad lock's release failed: its mutex is still held")
	require.False(t, m.IsHeld())
	require.Empty(t, children(t, ctx, c, lockPath1))
	require.NoError(t, otherGood.Unlock(ctx))
	require.Empty(t, children(t, ctx, c, lockPath2))
}

// TestSomeLocksFailToLock: a set of a good mutex and a lock whose acquire
// fails: Lock fails with that error after the good one was taken (it is
// taken first, by path), and releases the good one: nothing is held and
// nothing is left on the server.
func TestSomeLocksFailToLock(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	good, err := mutex.New(c, lockPath1)
	require.NoError(t, err)
	var goodWasLocked atomic.Bool
	fail := func(context.Context) error {
		if good.IsHeld() {
			goodWasLocked.Store(true)
		}
		return errFoo
	}
	bad := &fakeLock{
		path: lockPath2, lock: fail, tryLock: fail,
		unlock: func(context.Context) error { return errFoo },
		token:  func(context.Context) (int64, error) { return 0, errFoo },
		lostCh: func() <-chan struct{} { return nil },
	}
	m, err := mutex.NewMultiOf(bad, good) // listed last: taken first all the same
	require.NoError(t, err)
	err = m.Lock(ctx)
	require.ErrorIs(t, err, errFoo)
	require.ErrorContains(t, err, lockPath2)
	require.False(t, good.IsHeld())
	require.False(t, m.IsHeld())
	require.True(t, goodWasLocked.Load(), "the good lock was held when the bad one was tried")
	require.Empty(t, children(t, ctx, c, lockPath1), "the good lock's node was deleted")
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld)
}

// TestReentrant (TestInterProcessMutexBase.testReentrant, changed): a
// Multi is one handle shared like sync.Mutex, not reentrant: a second Lock
// while it is held waits (here until its context ends) and TryLock fails
// at once as Local; after Unlock it locks again.
func TestReentrant(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	m := newMulti(t, c, lockPath1, lockPath2)
	require.NoError(t, m.Lock(ctx))
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, m.Lock(short), context.DeadlineExceeded)
	var le *zkrecipes.LockedError
	require.ErrorAs(t, m.TryLock(ctx), &le)
	require.True(t, le.Local)
	require.True(t, m.IsHeld(), "the failed calls left the holding alone")
	require.NoError(t, m.Unlock(ctx))
	require.NoError(t, m.Lock(ctx))
	require.NoError(t, m.Unlock(ctx))
}

// TestReentrantSingleLock (TestInterProcessMutexBase): ten goroutines
// share one Multi handle; they hold it one at a time.
func TestReentrantSingleLock(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, time.Minute)
	m := newMulti(t, c, lockPath1, lockPath2)
	var holding atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Lock(ctx); err != nil {
				errs <- err
				return
			}
			if !holding.CompareAndSwap(false, true) {
				errs <- errors.New("two goroutines hold the handle")
			}
			time.Sleep(20 * time.Millisecond)
			holding.Store(false)
			if err := m.Unlock(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// Test2Clients (TestInterProcessMutexBase): two clients, each with a
// multi-lock on the same paths, exclude each other: while the first holds,
// the second's TryLock fails and its Lock waits; once the first unlocks,
// the second's Lock returns.
func Test2Clients(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 30*time.Second)
	m1 := newMulti(t, itest.Connect(t, shared, itest.Opts{NS: ns}), lockPath1, lockPath2)
	m2 := newMulti(t, itest.Connect(t, shared, itest.Opts{NS: ns}), lockPath2, lockPath1)
	require.NoError(t, m1.Lock(ctx))
	require.ErrorIs(t, m2.TryLock(ctx), zkrecipes.ErrLocked)
	got := make(chan error, 1)
	var released atomic.Bool
	go func() {
		err := m2.Lock(ctx)
		if err == nil && !released.Load() {
			err = errors.New("the second client got the set while the first held it")
		}
		got <- err
	}()
	time.Sleep(300 * time.Millisecond)
	released.Store(true)
	require.NoError(t, m1.Unlock(ctx))
	require.NoError(t, itest.Await(t, got, 10*time.Second, "the second client's Lock"))
	require.NoError(t, m2.Unlock(ctx))
}

// TestKilledSession (TestInterProcessMutexBase): two multi-locks on one
// client; the first holds, the second waits; the session is expired: the
// first's Lost closes (its Unlock says ErrLost), and the second, which held
// nothing, queues again on the new session and gets the set.
func TestKilledSession(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: 2 * time.Second})
	ctx := itest.Ctx(t, time.Minute)
	m1 := newMulti(t, c, lockPath1, lockPath2)
	m2 := newMulti(t, c, lockPath1, lockPath2)
	require.NoError(t, m1.Lock(ctx))
	lost := m1.Lost()
	got := make(chan error, 1)
	go func() { got <- m2.Lock(ctx) }()
	itest.Eventually(t, 10*time.Second, "the second waits in the queue", func() bool {
		return len(children(t, ctx, c, lockPath1)) == 2
	})
	require.NoError(t, link.ExpireSession(ctx))
	require.True(t, itest.WaitClosed(lost, 10*time.Second), "the holder's Lost closed")
	require.False(t, m1.IsHeld())
	require.NoError(t, itest.Await(t, got, 30*time.Second, "the waiter's Lock after the expiry"))
	require.True(t, m2.IsHeld())
	require.ErrorIs(t, m1.Unlock(ctx), zkrecipes.ErrLost)
	require.NoError(t, m2.Unlock(ctx))
	require.Empty(t, children(t, ctx, c, lockPath1))
	require.Empty(t, children(t, ctx, c, lockPath2))
}

// TestContainerCleanup (TestInterProcessMutexBase): ten goroutines, each
// with a multi-lock of its own on one client, take the set in turn; once
// done, the lock paths (containers) are reaped by the server.
func TestContainerCleanup(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, time.Minute)
	s := newInside()
	paths := []string{lockPath1, lockPath2}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := mutex.NewMulti(c, paths)
			if err == nil {
				err = m.Lock(ctx)
			}
			if err != nil {
				errs <- err
				return
			}
			s.enter(paths)
			time.Sleep(10 * time.Millisecond)
			s.leave(paths)
			errs <- m.Unlock(ctx)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	entries, violations := s.counts()
	require.Equal(t, 10, entries)
	require.Zero(t, violations)
	itest.Eventually(t, 20*time.Second, "the lock paths reaped", func() bool {
		ok, _, err := c.Exists(ctx, "/locks")
		return err == nil && !ok
	})
}

// TestWithNamespace (TestInterProcessMutexBase): a multi-lock under a
// client namespace makes its nodes under it.
func TestWithNamespace(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns + "/test"})
	raw := itest.Connect(t, shared, itest.Opts{})
	ctx := itest.Ctx(t, 30*time.Second)
	m := newMulti(t, c, lockPath1, lockPath2)
	require.NoError(t, m.Lock(ctx))
	require.Len(t, children(t, ctx, raw, ns+"/test"+lockPath1), 1)
	require.Len(t, children(t, ctx, raw, ns+"/test"+lockPath2), 1)
	require.NoError(t, m.Unlock(ctx))
}
