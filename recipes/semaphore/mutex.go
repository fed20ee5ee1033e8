package semaphore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// Mutex is Curator's InterProcessSemaphoreMutex: a semaphore of one lease
// on the same layout (locks/ and leases/ under its path), so it is wire
// compatible with the Java class. Unlike mutex.Mutex it is not reentrant:
// a second Lock of the same handle waits (in ZooKeeper) for the first
// Unlock, whichever goroutine asks. It is a mutex.Locker. A zero Mutex
// returns an error wrapping zkrecipes.ErrInvalidArgument from every method that can
// return one.
type Mutex struct {
	s *Semaphore

	mu    sync.Mutex
	lease *Lease // the holding, or nil
}

var _ mutex.Locker = (*Mutex)(nil)

// NewMutex returns a handle on the semaphore mutex at path (relative to the
// client's namespace). It does no I/O.
func NewMutex(c *client.Client, path string, opts ...Option) (*Mutex, error) {
	s, err := New(c, path, 1, opts...)
	if err != nil {
		return nil, err
	}
	s.recipe = client.RecipeSemaphoreMutex
	return &Mutex{s: s}, nil
}

func (m *Mutex) valid() bool { return m != nil && m.s.valid() }

// Lock waits until this handle holds the lock, or ctx ends.
func (m *Mutex) Lock(ctx context.Context) error { return m.lock(ctx, m.s.Acquire) }

// TryLock takes the lock if it is free, else fails at once with an error
// matching zkrecipes.ErrLocked (and ErrNoLeases), leaving no node behind.
func (m *Mutex) TryLock(ctx context.Context) error {
	err := m.lock(ctx, m.s.TryAcquire)
	if err != nil && isNoLeases(err) {
		return fmt.Errorf("%w: %w", zkrecipes.ErrLocked, err)
	}
	return err
}

func isNoLeases(err error) bool { return errors.Is(err, ErrNoLeases) }

func (m *Mutex) lock(ctx context.Context, acquire func(context.Context) (*Lease, error)) error {
	if !m.valid() {
		return errZero
	}
	l, err := acquire(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lease = l
	return nil
}

// Unlock releases the lock, from any goroutine: zkrecipes.ErrNotHeld when this handle
// does not hold it. See Lease.Release for a delete that cannot finish within
// ctx.
func (m *Mutex) Unlock(ctx context.Context) error {
	if !m.valid() {
		return errZero
	}
	m.mu.Lock()
	l := m.lease
	m.lease = nil
	m.mu.Unlock()
	if l == nil {
		return zkrecipes.ErrNotHeld
	}
	return l.Release(ctx)
}

// current is the holding, or nil.
func (m *Mutex) current() *Lease {
	if !m.valid() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lease
}

// IsHeld reports whether this handle holds the lock (even if it was lost and
// not yet unlocked; see Lost).
func (m *Mutex) IsHeld() bool { return m.current() != nil }

// Lost returns a channel closed once the holding may be gone (see
// Lease.Lost); already closed when this handle does not hold.
func (m *Mutex) Lost() <-chan struct{} {
	if l := m.current(); l != nil {
		return l.Lost()
	}
	return lockq.Closed()
}

// Token returns the holding's fencing token (see Lease.Token); zkrecipes.ErrNotHeld
// when this handle does not hold.
func (m *Mutex) Token(ctx context.Context) (int64, error) {
	if !m.valid() {
		return 0, errZero
	}
	l := m.current()
	if l == nil {
		return 0, zkrecipes.ErrNotHeld
	}
	return l.Token(ctx)
}

// Node returns the path of the held lease node, or "" when not held.
func (m *Mutex) Node() string {
	if l := m.current(); l != nil {
		return l.Node()
	}
	return ""
}

// Path returns the semaphore mutex's path, relative to the client's
// namespace ("" for a zero Mutex).
func (m *Mutex) Path() string {
	if !m.valid() {
		return ""
	}
	return m.s.Path()
}

// Semaphore is the one-lease semaphore underneath (nil for a zero Mutex).
func (m *Mutex) Semaphore() *Semaphore {
	if !m.valid() {
		return nil
	}
	return m.s
}
