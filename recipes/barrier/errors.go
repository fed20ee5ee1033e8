package barrier

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// The errors of this package. The errors it shares with the others are
// zkrecipes' (ErrClosed, ErrInvalidArgument, ...).
var (
	// ErrEntered is wrapped by the error of Enter on a handle that has
	// entered and not left yet.
	ErrEntered = errors.New("zkrecipes: barrier already entered")
	// ErrNotEntered is wrapped by the error of Leave on a handle that has
	// not entered (or has left already).
	ErrNotEntered = errors.New("zkrecipes: barrier not entered")
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", zkrecipes.ErrInvalidArgument, fmt.Sprintf(format, args...))
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
