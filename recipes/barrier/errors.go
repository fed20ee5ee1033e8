package barrier

import (
	"errors"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/check"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
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

// checkArgs validates what both constructors take: a client and an absolute
// path that is not the root.
func checkArgs(c *client.Client, path string) error {
	if err := check.ClientPath(c, path, "a barrier needs a node of its own, not the root"); err != nil {
		return err
	}
	// The nodes a double barrier makes under path must be valid too.
	return client.ValidatePath(path + "/" + readyName)
}

// errBarrierClosed is the error of a call on a closed barrier: it names it
// and wraps zkrecipes.ErrClosed.
var errBarrierClosed = errs.Named("zkrecipes: barrier is closed", zkrecipes.ErrClosed)
