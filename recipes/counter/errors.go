package counter

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// The errors of this package. The errors it shares with the others are
// zkrecipes' (ErrClosed, ErrInvalidArgument, ...).
var (
	// ErrMaybeApplied is wrapped by a *MaybeAppliedError: a write went out
	// and its answer was lost (the connection dropped, ctx ended, the client
	// closed), so the change may or may not have been made. It is the only
	// error after which the counter may have changed.
	ErrMaybeApplied = errors.New("zkrecipes: counter write may have been applied")
	// ErrContention is wrapped by the error of an update that other writers
	// beat on every try the retry policies allowed (and, with a promoted
	// lock, whose lock was not had within its timeout). The counter was not
	// changed by that call.
	ErrContention = errors.New("zkrecipes: counter update lost to other writers on every try")
	// ErrBadData is wrapped by a *BadDataError: the node's data is not a
	// counter.
	ErrBadData = errors.New("zkrecipes: node data is not an 8-byte counter")
)

// MaybeAppliedError is the error of a call whose write went out but whose
// answer never came: the counter may hold Value at version Version+1 because
// of it, or be as if the call never happened. Retrying the call could apply
// the change twice; the outcome can be told later only by someone who knows
// every writer's history (each successful write makes exactly one version:
// see Result.Version). It wraps ErrMaybeApplied and, unless it is a
// connection error that retry.IsRetryable would take as a reason to retry,
// its cause Err (ctx's error, zkrecipes.ErrClosed).
type MaybeAppliedError struct {
	Path    string // the counter's path, relative to the client's namespace
	Version int32  // the node's version the write required
	Value   int64  // the value the write would have left
	Err     error  // why the answer was lost
}

// Error names the counter, the write and the cause.
func (e *MaybeAppliedError) Error() string {
	return fmt.Sprintf("zkrecipes: counter %s: the write of %d over version %d may have been applied: %v",
		e.Path, e.Value, e.Version, e.Err)
}

// Unwrap lets errors.Is match ErrMaybeApplied and the cause, except a cause
// that retry.IsRetryable reports as retryable: a blind retry is exactly what
// must not follow this error.
func (e *MaybeAppliedError) Unwrap() []error {
	if e.Err == nil || retry.IsRetryable(e.Err) {
		return []error{ErrMaybeApplied}
	}
	return []error{ErrMaybeApplied, e.Err}
}

// BadDataError reports a counter node whose data is neither empty (which
// reads as 0) nor 8 bytes long. It wraps ErrBadData.
type BadDataError struct {
	Path string // the counter's path, relative to the client's namespace
	Data []byte // the data found
}

// Error names the path and shows the data, as Curator's corruption error.
func (e *BadDataError) Error() string {
	return fmt.Sprintf("zkrecipes: counter %s holds % x (%d bytes), not an 8-byte counter", e.Path, e.Data, len(e.Data))
}

// Unwrap lets errors.Is(err, ErrBadData) match.
func (e *BadDataError) Unwrap() error { return ErrBadData }

// errZero is the error of every call on a Counter not made by New.
func errZero() error { return errs.Invalid("zero or nil Counter: make one with New") }
