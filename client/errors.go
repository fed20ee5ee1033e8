package client

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned by every call made after Close.
	ErrClosed = errors.New("zkrecipes: client is closed")
	// ErrNotStarted is returned by calls that need a session before Start was called.
	ErrNotStarted = errors.New("zkrecipes: client is not started")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("zkrecipes: client is already started")
	// ErrInvalidArgument is wrapped by every error about a bad option or argument
	// (empty server list, non-positive timeout, nil client, ...).
	ErrInvalidArgument = errors.New("zkrecipes: invalid argument")
	// ErrInvalidPath is wrapped by every *PathError.
	ErrInvalidPath = errors.New("zkrecipes: invalid path")
	// ErrSessionLost is the cause a Session reports once ZooKeeper expired it,
	// or once the client gave it up after a whole session timeout without a
	// connection.
	ErrSessionLost = errors.New("zkrecipes: session lost")
)

// PathError describes a path that ZooKeeper would reject, or that this
// package refuses (anything under /zookeeper). It wraps ErrInvalidPath.
type PathError struct {
	Path   string // the path as given
	Reason string // why it is refused
}

// Error says which path was refused and why.
func (e *PathError) Error() string {
	return fmt.Sprintf("zkrecipes: invalid path %q: %s", e.Path, e.Reason)
}

// Unwrap lets errors.Is(err, ErrInvalidPath) match.
func (e *PathError) Unwrap() error { return ErrInvalidPath }

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZeroClient is the error of every call on a Client not made by New.
func errZeroClient() error { return invalidArg("zero or nil Client: make one with New") }
