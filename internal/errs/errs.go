// Package errs gives the recipes errors of their own for the sentinels
// they share with package client: a closed cache says "zkrecipes: cache is
// closed", not the client's "zkrecipes: client is closed", while
// errors.Is still matches zkrecipes.ErrClosed.
package errs

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
)

// Named returns an error that reads msg and wraps sentinel: errors.Is
// matches sentinel, errors.Unwrap returns it, and the message is msg
// alone. Each call makes a distinct value: keep it in a package variable.
func Named(msg string, sentinel error) error { return &named{msg: msg, sentinel: sentinel} }

type named struct {
	msg      string
	sentinel error
}

func (e *named) Error() string { return e.msg }

func (e *named) Unwrap() error { return e.sentinel }

// ClientClosed is the error of a closed client, shared by package client
// and the recipes (a recipe whose client closed under it says so): it
// wraps zkrecipes.ErrClosed.
var ClientClosed = Named("zkrecipes: client is closed", zkrecipes.ErrClosed)

// Invalid returns an error about a bad argument or option: it reads
// "zkrecipes: invalid argument: " and the message, and wraps
// zkrecipes.ErrInvalidArgument.
func Invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", zkrecipes.ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// Life are the errors of a call on a recipe that is closed, not started,
// or started already: they name it and wrap zkrecipes.ErrClosed,
// ErrNotStarted and ErrAlreadyStarted.
type Life struct {
	Closed         error // after Close
	NotStarted     error // before Start
	AlreadyStarted error // for a second Start
}

// NewLife returns the errors of the recipe what ("cache", "group member").
func NewLife(what string) *Life {
	return &Life{
		Closed:         Named("zkrecipes: "+what+" is closed", zkrecipes.ErrClosed),
		NotStarted:     Named("zkrecipes: "+what+" is not started", zkrecipes.ErrNotStarted),
		AlreadyStarted: Named("zkrecipes: "+what+" is already started", zkrecipes.ErrAlreadyStarted),
	}
}
