package queue

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// The errors of this package. The shared sentinels (ErrClosed,
// ErrInvalidArgument, ErrInvalidPath, ErrSessionLost, ErrLost) are declared
// once in the root package, github.com/go-zkrecipes/zkrecipes: every error
// of a closed handle wraps zkrecipes.ErrClosed, every bad argument
// zkrecipes.ErrInvalidArgument, and a bad path is a *client.PathError, which
// wraps zkrecipes.ErrInvalidPath.
var (
	// ErrMaybeApplied is wrapped by a *MaybeAppliedError: a put's create
	// went out and its answer was lost, so the item may be in the queue
	// or not. A put is never retried blindly: a second create could queue
	// the item twice.
	ErrMaybeApplied = errors.New("zkrecipes: queue put may have been applied")
	// ErrTooLarge is wrapped by a *TooLargeError: a request would exceed
	// the server's jute.maxbuffer, which makes ZooKeeper drop the
	// connection rather than answer. Nothing was sent.
	ErrTooLarge = errors.New("zkrecipes: queue request too large for the server")
	// ErrFull is wrapped, with ctx's error, by a bounded put (WithMaxItems)
	// whose ctx ended while it waited for room. Nothing was put.
	ErrFull = errors.New("zkrecipes: queue is full")
	// ErrEmpty is returned by Simple's Poll and Peek when the queue holds
	// no item (Curator's NoSuchElementException).
	ErrEmpty = errors.New("zkrecipes: queue is empty")
	// ErrNotLockSafe is wrapped by Item.CommitWith on a queue without a
	// lock path: an item is removed before its handler runs, so there is
	// no removal to commit with.
	ErrNotLockSafe = errors.New("zkrecipes: queue is not lock-safe (no lock path)")
	// ErrCorrupt is wrapped by the error of a CorruptItem event: an item
	// node whose data is not in Curator's item format. It is removed, as
	// Curator removes it.
	ErrCorrupt = errors.New("zkrecipes: queue item is not in Curator's format")
	// ErrLost is wrapped by the error of a CommitLost event: the session
	// holding an item's lock ended before its removal was confirmed, so
	// another consumer may process the item again, or the removal may
	// have committed unseen. It is also the cause of a lock-safe
	// handler's ctx once the item's lock may be gone. A lost item is a
	// lost holding: ErrLost wraps zkrecipes.ErrLost, so errors.Is matches
	// either.
	ErrLost = errs.Named("zkrecipes: queue item's lock was lost", zkrecipes.ErrLost)
	// ErrMaxAttempts is wrapped, with the last failure, by the error of
	// the Dropped or DeadLettered event of an item given up after its
	// last attempt (WithMaxAttempts, WithDeadLetterPath).
	ErrMaxAttempts = errors.New("zkrecipes: queue item failed its last attempt")
)

// MaybeAppliedError is the error of a put whose create was sent and whose
// answer never came (the connection dropped, ctx ended, the client
// closed): the item may be in the queue or not. Retrying the put could
// queue it twice; a consumer that must tell can look for an id the item
// carries. It wraps ErrMaybeApplied and, unless it is a connection error
// that retry.IsRetryable reports as retryable, its cause Err.
type MaybeAppliedError struct {
	Path string // the queue's path, relative to the client's namespace
	Err  error  // why the answer was lost
}

// Error names the queue and the cause.
func (e *MaybeAppliedError) Error() string {
	return fmt.Sprintf("zkrecipes: queue %s: the put may have been applied: %v", e.Path, e.Err)
}

// Unwrap lets errors.Is match ErrMaybeApplied and the cause, except a cause
// that retry.IsRetryable reports as retryable: a blind retry is exactly
// what must not follow this error.
func (e *MaybeAppliedError) Unwrap() []error {
	if e.Err == nil || retry.IsRetryable(e.Err) {
		return []error{ErrMaybeApplied}
	}
	return []error{ErrMaybeApplied, e.Err}
}

// TooLargeError reports a request that would not fit the server's
// jute.maxbuffer (WithMaxBuffer): an item, or a node of several, too big.
// It wraps ErrTooLarge; nothing was sent.
type TooLargeError struct {
	Path  string // the queue's path, relative to the client's namespace
	Size  int    // the request's size in bytes
	Limit int    // the largest request the server takes
}

// Error names the sizes.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("zkrecipes: queue %s: a request of %d bytes exceeds the server's limit of %d (jute.maxbuffer)",
		e.Path, e.Size, e.Limit)
}

// Unwrap lets errors.Is(err, ErrTooLarge) match.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

func invalidArg(format string, args ...any) error { return errs.Invalid(format, args...) }

// errZero is the error of every call on a handle not made by its
// constructor.
func errZero(what string) error {
	return invalidArg("zero or nil %s: make one with its constructor", what)
}
