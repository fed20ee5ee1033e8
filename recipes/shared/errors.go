package shared

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of this package. The errors it shares with the others are
// zkrecipes' (ErrClosed, ErrInvalidArgument, ...).
var (
	// ErrBadData is wrapped by a *BadDataError: the node's data is not a
	// 4-byte count.
	ErrBadData = errors.New("zkrecipes: node data is not a 4-byte count")
)

// BadDataError reports a count node whose data is not 4 bytes long. It
// wraps ErrBadData.
type BadDataError struct {
	Path string // the count's path, relative to the client's namespace
	Data []byte // the data found
}

// Error names the path and how long its data was.
func (e *BadDataError) Error() string {
	return fmt.Sprintf("zkrecipes: count %s holds %d bytes of data, not a 4-byte count", e.Path, len(e.Data))
}

// Unwrap lets errors.Is(err, ErrBadData) match.
func (e *BadDataError) Unwrap() error { return ErrBadData }

// errZero is the error of every call on a Count not made by NewCount.
func errZero() error { return errs.Invalid("zero or nil Count: make one with NewCount") }

// errBytesZero is the error of every call on a Bytes not made by NewBytes.
func errBytesZero() error { return errs.Invalid("zero or nil Bytes: make one with NewBytes") }

// The errors of a count or a shared value that is closed, not started or
// started already: they name it and wrap zkrecipes.ErrClosed,
// ErrNotStarted and ErrAlreadyStarted.
var (
	countLife = errs.NewLife("count")
	valueLife = errs.NewLife("shared value")
)

// lifeOf is the lifecycle errors of what ("count" or "shared value").
func lifeOf(what string) *errs.Life {
	if what == countWhat {
		return countLife
	}
	return valueLife
}
