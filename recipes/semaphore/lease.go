package semaphore

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// Lease is one lease held on a semaphore. Release it exactly once; Lost
// tells when it may be gone without a Release. A zero Lease returns an error
// wrapping zkrecipes.ErrInvalidArgument from every method that can return one.
type Lease struct {
	h         *lockq.Held // the lease node, watched as a lock holder's node is
	data      []byte
	releasing atomic.Bool
}

// newLease starts holding node, one of s's leases. disc is the client's
// Disconnected channel taken before the listing that granted the lease, or
// nil when Lost must close on session loss only.
func (s *Semaphore) newLease(node client.ProtectedNode, disc <-chan struct{}) *Lease {
	return &Lease{h: lockq.Hold(s.c, node, disc, s.recipe, s.path), data: s.o.data}
}

func (l *Lease) valid() bool { return l != nil && l.h != nil }

// Node is the lease node's path (relative to the client's namespace); ""
// for a zero Lease.
func (l *Lease) Node() string {
	if !l.valid() {
		return ""
	}
	return l.h.Path()
}

// Data is the lease node's data, as written when it was created (a copy).
func (l *Lease) Data() []byte {
	if !l.valid() {
		return nil
	}
	return append([]byte(nil), l.data...)
}

// Lost returns a channel closed once holding the lease can no longer be
// guaranteed: the connection was suspended (unless the semaphore was made
// WithLostOnSessionLossOnly), the session was lost, the lease node was
// deleted or changed owner, the client closed, or the lease was released.
// For a zero Lease it is already closed.
func (l *Lease) Lost() <-chan struct{} {
	if !l.valid() {
		return lockq.Closed()
	}
	return l.h.Lost()
}

// Token returns the lease's fencing token: its node's creation zxid, never 0
// with a nil error. zkrecipes.ErrNotHeld after Release, zkrecipes.ErrLost once the lease may be
// gone. The holder's monitor reads the node just after the grant; Token waits
// for that read (at most one round trip).
func (l *Lease) Token(ctx context.Context) (int64, error) {
	if !l.valid() {
		return 0, errZero
	}
	if ctx == nil {
		return 0, errs.Invalid("nil context")
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := l.gone(); err != nil {
		return 0, err
	}
	tok, err := l.h.Token(ctx)
	if err != nil {
		if gone := l.gone(); gone != nil {
			return 0, gone
		}
		return 0, err
	}
	return tok, nil
}

// gone is why the lease cannot be vouched for, or nil.
func (l *Lease) gone() error {
	if l.releasing.Load() {
		return zkrecipes.ErrNotHeld
	}
	switch cause := l.h.Cause(); {
	case cause == nil:
		return nil
	case errors.Is(cause, zkrecipes.ErrNotHeld):
		return zkrecipes.ErrNotHeld
	default:
		return zkrecipes.ErrLost
	}
}

// Release gives the lease back: Lost closes and the lease node is deleted
// with a guaranteed delete. If the delete cannot finish within ctx (nil
// means no deadline), the lease is released all the same, the client keeps
// deleting the node in the background for as long as its session lives, and
// the error wraps zkrecipes.ErrDeletePending. A second Release returns zkrecipes.ErrNotHeld.
func (l *Lease) Release(ctx context.Context) error {
	if !l.valid() {
		return errZero
	}
	if !l.releasing.CompareAndSwap(false, true) {
		return zkrecipes.ErrNotHeld
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return l.h.Release(ctx)
}
