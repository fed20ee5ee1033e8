package barrier

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The errors of this package. The sentinels shared with package client are
// the same values, so errors.Is matches either spelling.
var (
	// ErrLost is wrapped by the error of Enter when the member's node went
	// away while it waited (its session was lost, or someone deleted the
	// node), and of Leave when the node was already gone when Leave began:
	// the other members may then have counted this one as gone.
	ErrLost = errors.New("zkrecipes: barrier member's node is gone")
	// ErrEntered is wrapped by the error of Enter on a handle that has
	// entered and not left yet.
	ErrEntered = errors.New("zkrecipes: barrier already entered")
	// ErrNotEntered is wrapped by the error of Leave on a handle that has
	// not entered (or has left already).
	ErrNotEntered = errors.New("zkrecipes: barrier not entered")
	// ErrClosed is wrapped by the error of every call after Close, of a
	// call that Close interrupted, and of calls once the client is closed.
	ErrClosed = client.ErrClosed
	// ErrInvalidArgument is wrapped by errors about bad arguments (a nil
	// client, a member count below 1, a nil option) and by every error of a
	// zero Barrier or Double.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad barrier
	// path (the root included: a barrier needs a node of its own).
	ErrInvalidPath = client.ErrInvalidPath
	// ErrDeletePending is wrapped by the error of a call that had to give
	// up its node but could not delete it in time: the client keeps
	// deleting it in the background (see client.DeleteGuaranteed).
	ErrDeletePending = client.ErrDeletePending
	// ErrSessionLost is wrapped, beside ErrLost, when the member's session
	// ended.
	ErrSessionLost = client.ErrSessionLost
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// check validates what both constructors take: a client and an absolute
// path that is not the root.
func check(c *client.Client, path string) error {
	if c == nil {
		return invalidArg("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return err
	}
	if path == "/" {
		return &client.PathError{Path: path, Reason: "a barrier needs a node of its own, not the root"}
	}
	// The nodes a double barrier makes under path must be valid too.
	return client.ValidatePath(path + "/" + readyName)
}
