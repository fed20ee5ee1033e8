package group

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of a call on a member that is closed, not started, or started
// already: they name the member and wrap zkrecipes.ErrClosed, zkrecipes.ErrNotStarted and
// zkrecipes.ErrAlreadyStarted. A call that fails because the client is closed wraps
// zkrecipes.ErrClosed as the client says it.
var (
	errMemberClosed         = errs.Named("zkrecipes: group member is closed", zkrecipes.ErrClosed)
	errMemberNotStarted     = errs.Named("zkrecipes: group member is not started", zkrecipes.ErrNotStarted)
	errMemberAlreadyStarted = errs.Named("zkrecipes: group member is already started", zkrecipes.ErrAlreadyStarted)
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", zkrecipes.ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every call on a Member not made by New.
func errZero() error { return invalidArg("zero or nil Member: make one with New") }
