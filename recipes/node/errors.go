package node

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of this package. They are package client's values, so
// errors.Is matches whichever package a caller names.
var (
	// ErrClosed is wrapped by the error of every call after Close, and of
	// calls once the client is closed.
	ErrClosed = client.ErrClosed
	// ErrNotStarted is returned by WaitForInitialCreate before Start.
	ErrNotStarted = client.ErrNotStarted
	// ErrAlreadyStarted is wrapped by the error of a second Start.
	ErrAlreadyStarted = client.ErrAlreadyStarted
	// ErrInvalidArgument is wrapped by errors about bad arguments (a nil
	// client, a nil option, an unknown mode, a TTL out of range or with an
	// ephemeral mode, a sequential mode without WithProtection) and by
	// every error of a zero Node.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad node path.
	ErrInvalidPath = client.ErrInvalidPath
	// ErrDeletePending is wrapped by the error of a Close whose delete of
	// the node goes on in the background (see client.DeleteGuaranteed).
	ErrDeletePending = client.ErrDeletePending
)

// The errors of a call on a node that is closed, not started, or started
// already: they name the node and wrap ErrClosed, ErrNotStarted and
// ErrAlreadyStarted. A call that fails because the client is closed wraps
// ErrClosed as the client says it.
var (
	errNodeClosed         = errs.Named("zkrecipes: node is closed", ErrClosed)
	errNodeNotStarted     = errs.Named("zkrecipes: node is not started", ErrNotStarted)
	errNodeAlreadyStarted = errs.Named("zkrecipes: node is already started", ErrAlreadyStarted)
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every method of a Node not made by New.
func errZero() error { return invalidArg("zero or nil Node: make one with New") }
