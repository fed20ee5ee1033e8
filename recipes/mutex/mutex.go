package mutex

import (
	"context"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
)

// LockName is the marker of the mutex's nodes, as in Curator.
const LockName = "lock-"

var (
	// ErrLocked is returned by TryLock when another contender holds the lock.
	ErrLocked = queue.ErrWouldBlock
	// ErrNotHeld is returned by Unlock on a handle that does not hold the lock.
	ErrNotHeld = queue.ErrNotHeld
	// ErrLost is returned by a reentrant Lock on a handle whose holding was
	// lost: Unlock it (as often as it was locked) before locking again.
	ErrLost = queue.ErrLost
)

// Mutex is one handle on a distributed lock. See the package documentation.
type Mutex struct {
	q    *queue.Queue
	req  queue.Request
	slot *queue.Reentrant
}

// Option configures a Mutex.
type Option func(*queue.Options)

// WithData sets the lock node's data (default: this host's IP address, as Curator).
func WithData(data []byte) Option {
	return func(o *queue.Options) { o.Data = append([]byte(nil), data...) }
}

// WithRevocationListener registers f, called on its own goroutine when
// another process asks the holder to release (see Revoke). f would normally
// finish its work and Unlock.
func WithRevocationListener(f func()) Option {
	return func(o *queue.Options) { o.OnRevoke = f }
}

// WithLostOnSessionLossOnly makes Lost close only when the session is lost,
// not already when the connection is suspended. See the package documentation
// for what that trades away.
func WithLostOnSessionLossOnly() Option {
	return func(o *queue.Options) { o.SessionOnly = true }
}

// New returns a handle on the lock at path (relative to the client's
// namespace). It does no I/O.
func New(c *client.Client, path string, opts ...Option) (*Mutex, error) {
	req, err := queue.Prepare(c, path, opts)
	if err != nil {
		return nil, err
	}
	req.Marker, req.Predicate = LockName, queue.Exclusive
	return &Mutex{
		q:    queue.New(c, path, LockName),
		req:  req,
		slot: queue.NewReentrant(queue.NewSemaphore()),
	}, nil
}

// Lock waits until this handle holds the lock, or ctx ends. On a handle that
// already holds, it only counts one more level of reentrancy.
func (m *Mutex) Lock(ctx context.Context) error { return m.acquire(ctx, true) }

// TryLock takes the lock if it is free, else returns ErrLocked at once
// (after one create and one listing; the node it made is deleted).
func (m *Mutex) TryLock(ctx context.Context) error { return m.acquire(ctx, false) }

func (m *Mutex) acquire(ctx context.Context, wait bool) error {
	if m == nil {
		return fmt.Errorf("%w: nil mutex", client.ErrInvalidArgument)
	}
	req := m.req
	req.Wait = wait
	return m.slot.Acquire(ctx, func(ctx context.Context) (*queue.Held, error) {
		return m.q.Acquire(ctx, req)
	})
}

// Unlock undoes one Lock. When the count reaches zero the lock node is
// deleted; if that cannot finish within ctx it is retried in the background
// for as long as the node's session lives, and the error is returned.
func (m *Mutex) Unlock(ctx context.Context) error {
	if m == nil {
		return fmt.Errorf("%w: nil mutex", client.ErrInvalidArgument)
	}
	return m.slot.Release(ctx)
}

// IsHeld reports whether this handle holds the lock (even if it was lost
// and not yet unlocked; see Lost).
func (m *Mutex) IsHeld() bool { return m != nil && m.slot.Current() != nil }

// Lost returns a channel closed when this handle's ownership can no longer
// be guaranteed. On a handle that does not hold, it is already closed.
func (m *Mutex) Lost() <-chan struct{} {
	if m == nil {
		return queue.Closed()
	}
	return m.slot.Lost()
}

// Token returns the fencing token of the current holding: the lock node's
// creation zxid, strictly greater than any earlier holder's. 0 when not held.
func (m *Mutex) Token() int64 {
	if m == nil {
		return 0
	}
	return m.slot.Token()
}

// Node returns the path of the held lock node, or "" when not held.
func (m *Mutex) Node() string {
	if m == nil {
		return ""
	}
	return m.slot.Node()
}

// Path returns the lock's path.
func (m *Mutex) Path() string {
	if m == nil {
		return ""
	}
	return m.q.Dir()
}

// Participant is one contender for a lock, as listed by Participants.
type Participant = queue.Participant

// Participants lists the contenders for the lock in queue order, the holder
// first.
func (m *Mutex) Participants(ctx context.Context) ([]Participant, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil mutex", client.ErrInvalidArgument)
	}
	return m.q.Participants(ctx)
}

// Revoke asks the holder of the lock node at nodePath (see Participants) to
// release it, as Curator's Revoker does: it writes the marker "__REVOKE__"
// into the node, which calls the holder's revocation listener.
func Revoke(ctx context.Context, c *client.Client, nodePath string) error {
	if c == nil {
		return fmt.Errorf("%w: nil client", client.ErrInvalidArgument)
	}
	return queue.Revoke(ctx, c, nodePath)
}
