package rwlock

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
)

// The node markers, as in Curator (both eight characters).
const (
	ReadLockName  = "__READ__"
	WriteLockName = "__WRIT__"
)

var (
	// ErrLocked is returned by TryLock and TryRLock when they would have to wait.
	ErrLocked = queue.ErrWouldBlock
	// ErrNotHeld is returned by Unlock or RUnlock on a side this handle does not hold.
	ErrNotHeld = queue.ErrNotHeld
	// ErrLost is returned by a reentrant acquire on a side whose holding was lost.
	ErrLost = queue.ErrLost
	// ErrUpgrade is returned by Lock and TryLock on a handle that holds the
	// read lock but not the write lock: that upgrade would wait forever.
	ErrUpgrade = errors.New("zkrecipes/rwlock: cannot take the write lock while holding the read lock")
)

// RWMutex is one handle on a distributed read/write lock.
type RWMutex struct {
	q     *queue.Queue
	read  *Side
	write *Side
}

// Side is one side (read or write) of a handle, usable on its own as a
// locker, like Curator's readLock() and writeLock().
type Side struct {
	rw   *RWMutex
	req  queue.Request
	slot *queue.Reentrant
}

// Option configures a RWMutex.
type Option func(*queue.Options)

// WithData sets the lock nodes' data (default: this host's IP address, as Curator).
func WithData(data []byte) Option {
	return func(o *queue.Options) { o.Data = append([]byte(nil), data...) }
}

// WithRevocationListener registers f, called on its own goroutine when
// another process writes Curator's revocation marker into a node this handle
// holds (see mutex.Revoke, which works on any lock node).
func WithRevocationListener(f func()) Option {
	return func(o *queue.Options) { o.OnRevoke = f }
}

// WithLostOnSessionLossOnly makes Lost close only when the session is lost,
// not already when the connection is suspended (see package mutex).
func WithLostOnSessionLossOnly() Option {
	return func(o *queue.Options) { o.SessionOnly = true }
}

// New returns a handle on the read/write lock at path (relative to the
// client's namespace). It does no I/O.
func New(c *client.Client, path string, opts ...Option) (*RWMutex, error) {
	base, err := queue.Prepare(c, path, opts)
	if err != nil {
		return nil, err
	}
	rw := &RWMutex{q: queue.New(c, path, ReadLockName, WriteLockName)}
	sem := queue.NewSemaphore() // one for both sides: each looks at the other
	rw.read = &Side{rw: rw, req: base, slot: queue.NewReentrant(sem)}
	rw.read.req.Marker, rw.read.req.Predicate = ReadLockName, queue.Reader(WriteLockName)
	rw.write = &Side{rw: rw, req: base, slot: queue.NewReentrant(sem)}
	rw.write.req.Marker, rw.write.req.Predicate = WriteLockName, queue.Writer(WriteLockName)
	return rw, nil
}

// ReadLock returns the read side of the handle (nil on a nil handle; every
// method of a nil *Side returns an error or a zero value).
func (rw *RWMutex) ReadLock() *Side {
	if rw == nil {
		return nil
	}
	return rw.read
}

// WriteLock returns the write side of the handle.
func (rw *RWMutex) WriteLock() *Side {
	if rw == nil {
		return nil
	}
	return rw.write
}

// Lock takes the write lock.
func (rw *RWMutex) Lock(ctx context.Context) error { return rw.WriteLock().Lock(ctx) }

// TryLock takes the write lock if it is free, else returns ErrLocked.
func (rw *RWMutex) TryLock(ctx context.Context) error { return rw.WriteLock().TryLock(ctx) }

// Unlock releases the write lock once.
func (rw *RWMutex) Unlock(ctx context.Context) error { return rw.WriteLock().Unlock(ctx) }

// RLock takes the read lock.
func (rw *RWMutex) RLock(ctx context.Context) error { return rw.ReadLock().Lock(ctx) }

// TryRLock takes the read lock if no writer is ahead, else returns ErrLocked.
func (rw *RWMutex) TryRLock(ctx context.Context) error { return rw.ReadLock().TryLock(ctx) }

// RUnlock releases the read lock once.
func (rw *RWMutex) RUnlock(ctx context.Context) error { return rw.ReadLock().Unlock(ctx) }

// Path returns the lock's path.
func (rw *RWMutex) Path() string {
	if rw == nil {
		return ""
	}
	return rw.q.Dir()
}

// Participant is one contender, as listed by Participants.
type Participant = queue.Participant

// Participants lists readers and writers in queue order; Marker tells which is which.
func (rw *RWMutex) Participants(ctx context.Context) ([]Participant, error) {
	if rw == nil {
		return nil, fmt.Errorf("%w: nil lock", client.ErrInvalidArgument)
	}
	return rw.q.Participants(ctx)
}

// Lock waits until this side holds, or ctx ends.
func (s *Side) Lock(ctx context.Context) error { return s.acquire(ctx, true) }

// TryLock holds at once or returns ErrLocked.
func (s *Side) TryLock(ctx context.Context) error { return s.acquire(ctx, false) }

// Unlock undoes one Lock of this side.
func (s *Side) Unlock(ctx context.Context) error {
	if s == nil {
		return fmt.Errorf("%w: nil lock", client.ErrInvalidArgument)
	}
	return s.slot.Release(ctx)
}

func (s *Side) acquire(ctx context.Context, wait bool) error {
	if s == nil {
		return fmt.Errorf("%w: nil lock", client.ErrInvalidArgument)
	}
	return s.slot.Acquire(ctx, func(ctx context.Context) (*queue.Held, error) {
		req := s.req
		req.Wait = wait
		if s == s.rw.write {
			if s.rw.read.slot.Current() != nil {
				return nil, ErrUpgrade
			}
		} else if w := s.rw.write.slot.Current(); w != nil {
			// Downgrade: a read node at the writer's place, held at once. Only
			// while the write holding lives, and only in its session: a lost
			// writer may already have a successor, which a read node at the
			// old place would overtake.
			select {
			case <-w.Lost():
				return nil, ErrLost
			default:
			}
			req.Suffix, _ = queue.SortKey(w.Name(), []string{WriteLockName})
			req.Predicate = queue.Always
			req.Session = w.Session()
		}
		return s.rw.q.Acquire(ctx, req)
	})
}

// IsHeld reports whether this side holds (even if lost and not yet unlocked).
func (s *Side) IsHeld() bool { return s != nil && s.slot.Current() != nil }

// Lost returns a channel closed when this side's ownership can no longer be
// guaranteed; already closed when it does not hold.
func (s *Side) Lost() <-chan struct{} {
	if s == nil {
		return queue.Closed()
	}
	return s.slot.Lost()
}

// Token is the fencing token of this side's holding (its node's czxid), or 0.
func (s *Side) Token() int64 {
	if s == nil {
		return 0
	}
	return s.slot.Token()
}

// Node is the path of this side's held node, or "".
func (s *Side) Node() string {
	if s == nil {
		return ""
	}
	return s.slot.Node()
}
