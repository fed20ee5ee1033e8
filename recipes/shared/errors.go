package shared

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The errors of this package. The sentinels shared with package client are
// the same values, so errors.Is matches either spelling.
var (
	// ErrBadData is wrapped by a *BadDataError: the node's data is not a
	// 4-byte count.
	ErrBadData = errors.New("zkrecipes: node data is not a 4-byte count")
	// ErrNotStarted is wrapped by the error of Get, Set and TrySet before
	// Start has succeeded.
	ErrNotStarted = client.ErrNotStarted
	// ErrAlreadyStarted is wrapped by the error of a second Start.
	ErrAlreadyStarted = client.ErrAlreadyStarted
	// ErrClosed is wrapped by the error of every call after Close, and of
	// calls once the client is closed.
	ErrClosed = client.ErrClosed
	// ErrInvalidArgument is wrapped by errors about bad arguments (a nil
	// client, a nil option) and by every error of a zero Count.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad count path.
	ErrInvalidPath = client.ErrInvalidPath
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

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every call on a Count not made by NewCount.
func errZero() error { return invalidArg("zero or nil Count: make one with NewCount") }
