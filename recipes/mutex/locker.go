package mutex

import (
	"context"
	"sync"
	"time"
)

// Locker is what every zkrecipes lock handle does: a *Mutex, each side of
// a rwlock.RWMutex, and a semaphore.Mutex. Code that only locks and
// unlocks can take a Locker; a Multi takes a set of them.
type Locker interface {
	// Lock waits until the lock is held, or ctx ends.
	Lock(ctx context.Context) error
	// TryLock holds at once or fails with an error matching zkrecipes.ErrLocked.
	TryLock(ctx context.Context) error
	// Unlock releases one Lock.
	Unlock(ctx context.Context) error
	// Lost is closed once the holding may be gone.
	Lost() <-chan struct{}
	// Token is the holding's fencing token.
	Token(ctx context.Context) (int64, error)
	// Path is the lock's path, relative to its client's namespace ("" for
	// a zero handle). A Multi takes its locks in the order of their paths.
	Path() string
}

var _ Locker = (*Mutex)(nil)

// NewSyncLocker adapts l to sync.Locker, for code that wants one (etcd's
// concurrency.NewLocker does the same). sync.Locker has no context and no
// error, and panicking is not an option, so:
//
//   - Lock retries until it holds, waiting a second after each failure, and
//     passes every error to onError (nil: errors are dropped). It never
//     returns without holding: on a closed client it blocks forever, as a
//     deadlocked sync.Mutex would, rather than let two holders in.
//   - Unlock passes its error (zkrecipes.ErrNotHeld, zkrecipes.ErrLost for a holding that was
//     lost, or a delete left to the background) to onError.
//   - Nothing tells a sync.Locker user that the lock was lost: use l.Lost()
//     or l's Context alongside, or use the Locker itself.
func NewSyncLocker(l Locker, onError func(error)) sync.Locker {
	if onError == nil {
		onError = func(error) {}
	}
	return &syncLocker{l: l, onError: onError}
}

type syncLocker struct {
	l       Locker
	onError func(error)
}

func (s *syncLocker) Lock() {
	for {
		err := s.l.Lock(context.Background())
		if err == nil {
			return
		}
		s.onError(err)
		time.Sleep(time.Second)
	}
}

func (s *syncLocker) Unlock() {
	if err := s.l.Unlock(context.Background()); err != nil {
		s.onError(err)
	}
}
