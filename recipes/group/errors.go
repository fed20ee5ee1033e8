package group

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of this package: package client's sentinels, so errors.Is
// matches either spelling.
var (
	// ErrClosed is wrapped by the error of every call after Close.
	ErrClosed = client.ErrClosed
	// ErrAlreadyStarted is wrapped by the error of a second Start.
	ErrAlreadyStarted = client.ErrAlreadyStarted
	// ErrNotStarted is wrapped by the error of WaitJoined before Start.
	ErrNotStarted = client.ErrNotStarted
	// ErrInvalidArgument is wrapped by errors about bad arguments (a nil
	// client, an empty id or one with a '/', a nil option) and by every error
	// of a zero Member.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad group path.
	ErrInvalidPath = client.ErrInvalidPath
	// ErrDeletePending is wrapped by the error of a Close whose delete goes
	// on in the background (see client.DeleteGuaranteed).
	ErrDeletePending = client.ErrDeletePending
)

// The errors of a call on a member that is closed, not started, or started
// already: they name the member and wrap ErrClosed, ErrNotStarted and
// ErrAlreadyStarted. A call that fails because the client is closed wraps
// ErrClosed as the client says it.
var (
	errMemberClosed         = errs.Named("zkrecipes: group member is closed", ErrClosed)
	errMemberNotStarted     = errs.Named("zkrecipes: group member is not started", ErrNotStarted)
	errMemberAlreadyStarted = errs.Named("zkrecipes: group member is already started", ErrAlreadyStarted)
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every call on a Member not made by New.
func errZero() error { return invalidArg("zero or nil Member: make one with New") }
