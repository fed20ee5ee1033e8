package node

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of a call on a node that is closed, not started, or started
// already: they name the node and wrap zkrecipes.ErrClosed, zkrecipes.ErrNotStarted and
// zkrecipes.ErrAlreadyStarted. A call that fails because the client is closed wraps
// zkrecipes.ErrClosed as the client says it.
var (
	errNodeClosed         = errs.Named("zkrecipes: node is closed", zkrecipes.ErrClosed)
	errNodeNotStarted     = errs.Named("zkrecipes: node is not started", zkrecipes.ErrNotStarted)
	errNodeAlreadyStarted = errs.Named("zkrecipes: node is already started", zkrecipes.ErrAlreadyStarted)
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", zkrecipes.ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every method of a Node not made by New.
func errZero() error { return invalidArg("zero or nil Node: make one with New") }
