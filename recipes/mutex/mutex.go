package mutex

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// LockName is the marker of the mutex's nodes, as in Curator.
const LockName = "lock-"

// Mutex is one handle on a distributed lock: see the package documentation.
// The two sides of a rwlock.RWMutex are Mutex handles too. A zero Mutex
// returns an error wrapping zkrecipes.ErrInvalidArgument from every method.
type Mutex struct {
	h *lockq.Handle
}

// Option configures a Mutex.
type Option func(*options) error

// options are a lock handle's settings. The recipes built on this package
// (rwlock, semaphore) set through them what users cannot: the marker, the
// predicate, the local gate.
type options = lockq.Options

// WithData sets the lock node's data (default: this host's IP address, as Curator).
func WithData(data []byte) Option {
	return func(o *options) error {
		o.Data = append([]byte(nil), data...)
		return nil
	}
}

// WithRevocationListener registers f, called on its own goroutine when
// another process asks the holder to release (see Revoke). f would normally
// finish its work and Unlock.
// A nil f is an error wrapping zkrecipes.ErrInvalidArgument from New.
func WithRevocationListener(f func()) Option {
	return func(o *options) error {
		if f == nil {
			return errs.Invalid("nil revocation listener")
		}
		o.OnRevoke = f
		return nil
	}
}

// WithLostOnSessionLossOnly makes Lost close only when the session is lost,
// not already when the connection is suspended. See the package
// documentation for what that trades away.
func WithLostOnSessionLossOnly() Option {
	return func(o *options) error {
		o.LostOnSessionLossOnly = true
		return nil
	}
}

// New returns a handle on the lock at path (relative to the client's
// namespace). It does no I/O.
func New(c *client.Client, path string, opts ...Option) (*Mutex, error) {
	h, err := lockq.NewHandle(c, path, opts)
	if err != nil {
		return nil, err
	}
	return &Mutex{h: h}, nil
}

// Lock waits until this handle holds the lock, or ctx ends. While another
// goroutine holds the handle, it waits for that goroutine's Unlock first. If
// ctx comes from this handle's Context, it reenters at once, or fails with
// zkrecipes.ErrLost if that holding was lost: once Lost is closed, and already once
// the holding's session has ended (the client's Close ends it) or, by
// default, its connection was suspended, even if Lost has not closed yet.
func (m *Mutex) Lock(ctx context.Context) error { return m.h.Lock(ctx) }

// TryLock takes the lock if it is free, else fails at once with a
// *zkrecipes.LockedError (errors.Is(err, zkrecipes.ErrLocked)) naming the holder. It leaves no
// node behind.
func (m *Mutex) TryLock(ctx context.Context) error { return m.h.TryLock(ctx) }

// Unlock undoes one Lock, from any goroutine (zkrecipes.ErrNotHeld when the handle
// does not hold). The last one deletes the lock node; if that cannot finish
// within ctx, the handle is released all the same, the client keeps
// deleting the node in the background while its session lives, and the
// error wraps zkrecipes.ErrDeletePending.
//
// Unlock of a holding that was lost (see Lost) does all the same (the
// level is undone; the last one releases the handle and deletes the node
// with a guaranteed delete, which matters when only the connection was
// suspended and the session, hence the node, lives on), but returns an
// error wrapping zkrecipes.ErrLost, and the delete's error if it had one (zkrecipes.ErrClosed,
// zkrecipes.ErrDeletePending): the critical section it ends may have overlapped
// another holder's.
func (m *Mutex) Unlock(ctx context.Context) error { return m.h.Unlock(ctx) }

// IsHeld reports whether this handle holds the lock and that holding is not
// lost: it is false once Lost is closed (and as soon as the holding's
// session ended or, by default, its connection was suspended). A lost
// holding still needs its Unlock (which returns zkrecipes.ErrLost) before this handle
// can lock again.
func (m *Mutex) IsHeld() bool { return m.h.IsHeld() }

// Lost returns a channel closed when this handle's ownership can no longer
// be guaranteed. On a handle that does not hold, it is already closed. Once
// it is closed, IsHeld is false, a reentrant Lock and Token fail with
// zkrecipes.ErrLost, and Unlock, which the handle still needs, returns zkrecipes.ErrLost.
func (m *Mutex) Lost() <-chan struct{} { return m.h.Lost() }

// Token returns the fencing token of the current holding: the lock node's
// creation zxid, strictly greater than any earlier holder's. It fails with
// zkrecipes.ErrNotHeld when the handle does not hold and zkrecipes.ErrLost once the holding may
// be gone; it is never 0 with a nil error.
func (m *Mutex) Token(ctx context.Context) (int64, error) { return m.h.Token(ctx) }

// Context returns a context that is cancelled when the current holding is
// lost (context.Cause: zkrecipes.ErrLost) or released (zkrecipes.ErrNotHeld), and that carries
// the holding: Lock with it, or with a context derived from it, reenters.
// On a handle that does not hold, the context is cancelled already. Call
// cancel when done with it.
func (m *Mutex) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	return m.h.Context(ctx)
}

// OwnerCheck returns an op for client.Multi that lets the transaction commit
// only while this holding's node exists, like etcd's Mutex.IsOwner:
//
//	check, err := m.OwnerCheck()
//	_, err = c.Multi(ctx, check, &zk.SetDataRequest{Path: "/state", Data: b, Version: -1})
//
// zkrecipes.ErrNotHeld when the handle does not hold.
func (m *Mutex) OwnerCheck() (*zk.CheckVersionRequest, error) { return m.h.OwnerCheck() }

// Node returns the path of the held lock node, or "" when not held. A lost
// holding keeps its node's path here until its Unlock.
func (m *Mutex) Node() string { return m.h.Node() }

// Path returns the lock's path ("" for a nil or zero Mutex).
func (m *Mutex) Path() string {
	if m == nil {
		return ""
	}
	return m.h.Path()
}

// Participant is one contender for a lock, as listed by Participants.
type Participant struct {
	// Name is the node's name; Path its path.
	Name, Path string
	// Marker is its lock name ("lock-", "__READ__", ...).
	Marker string
	// Data is the node's data (Curator writes the holder's address).
	Data []byte
	// Czxid is the node's creation zxid: the fencing token it holds with.
	Czxid int64
}

// Participants lists the contenders for the lock in queue order, the holder
// first.
func (m *Mutex) Participants(ctx context.Context) ([]Participant, error) {
	ps, err := m.h.Participants(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Participant, len(ps))
	for i, p := range ps {
		out[i] = Participant(p)
	}
	return out, nil
}

// Revoke asks the holder of the lock node at nodePath (see Participants) to
// release it, as Curator's Revoker does: it writes the marker "__REVOKE__"
// into the node, which calls the holder's revocation listener.
func Revoke(ctx context.Context, c *client.Client, nodePath string) error {
	if c == nil {
		return zkrecipes.ErrInvalidArgument
	}
	return lockq.Revoke(ctx, c, nodePath)
}
