package election

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
)

// The errors of this package. Those taken from package client are the same
// values, so errors.Is works whichever package a caller names.
var (
	// ErrNoLeader is returned by Leader when nobody takes part in the
	// election: the path is empty or does not exist.
	ErrNoLeader = errors.New("zkrecipes: no leader")
	// ErrLost is the cause (context.Cause) of a term's context when
	// leadership may be gone: the connection was suspended (unless
	// WithLostOnSessionLossOnly), the session was lost, or the node was
	// deleted or changed owner.
	ErrLost = queue.ErrLost
	// ErrInterrupted is the cause of a term's context ended by
	// Term.Interrupt.
	ErrInterrupted = errors.New("zkrecipes: leadership interrupted")
	// ErrResigned is the cause of a term's context once its lead function
	// has returned (Run).
	ErrResigned = errors.New("zkrecipes: leader resigned")
	// ErrClosed is returned by a Latch's methods after Close, and by calls
	// made once the client is closed; it is also the cause of a term ended
	// by Close.
	ErrClosed = client.ErrClosed
	// ErrAlreadyStarted is returned by a second Start of a Latch.
	ErrAlreadyStarted = client.ErrAlreadyStarted
	// ErrInvalidArgument is wrapped by errors about bad arguments (nil
	// client, nil lead function, nil context, nil option) and by every
	// error of a zero Latch.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad path (a
	// relative one, the root, ...).
	ErrInvalidPath = client.ErrInvalidPath
	// ErrSessionLost is the cause a term's Session reports once it ended.
	ErrSessionLost = client.ErrSessionLost
	// ErrDeletePending is wrapped by a Close whose node delete goes on in
	// the background (see client.DeleteGuaranteed).
	ErrDeletePending = client.ErrDeletePending
)

// errZero is the error of every method of a zero Latch.
var errZero = fmt.Errorf("%w: zero value: make latches with NewLatch", ErrInvalidArgument)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// check validates what every entry point takes: a client and an absolute
// path that is not the root.
func check(c *client.Client, path string) error {
	if c == nil {
		return invalidArg("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return err
	}
	if path == "/" {
		return &client.PathError{Path: path, Reason: "an election needs a directory of its own, not the root"}
	}
	return nil
}
