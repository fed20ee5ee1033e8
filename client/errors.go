package client

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The client's errors for the shared sentinels: they say it is the client
// that is closed, not started or started already, and wrap
// zkrecipes.ErrClosed, ErrNotStarted and ErrAlreadyStarted.
var (
	errClosed         = errs.ClientClosed
	errNotStarted     = errs.Named("zkrecipes: client is not started", zkrecipes.ErrNotStarted)
	errAlreadyStarted = errs.Named("zkrecipes: client is already started", zkrecipes.ErrAlreadyStarted)
)

// PathError describes a path that ZooKeeper would reject, or that this
// package refuses (anything under /zookeeper). It wraps zkrecipes.ErrInvalidPath.
type PathError struct {
	Path   string // the path as given
	Reason string // why it is refused
}

// Error says which path was refused and why.
func (e *PathError) Error() string {
	return fmt.Sprintf("zkrecipes: invalid path %q: %s", e.Path, e.Reason)
}

// Unwrap lets errors.Is(err, zkrecipes.ErrInvalidPath) match.
func (e *PathError) Unwrap() error { return zkrecipes.ErrInvalidPath }

// errZeroClient is the error of every call on a Client not made by New.
func errZeroClient() error { return errs.Invalid("zero or nil Client: make one with New") }
