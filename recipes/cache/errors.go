package cache

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of this package. The sentinels shared with package client are
// the same values, so errors.Is matches either spelling.
var (
	// ErrClosed is wrapped by the error of every call after Close, and of
	// calls once the client is closed.
	ErrClosed = client.ErrClosed
	// ErrAlreadyStarted is wrapped by the error of a second Start.
	ErrAlreadyStarted = client.ErrAlreadyStarted
	// ErrNotStarted is wrapped by the error of WaitInitialized before Start.
	ErrNotStarted = client.ErrNotStarted
	// ErrInvalidArgument is wrapped by errors about bad arguments (a nil
	// client, a nil option or listener, a depth below 1) and by every error of
	// a zero Cache.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad cache path.
	ErrInvalidPath = client.ErrInvalidPath
)

// The errors of a call on a cache that is closed, not started, or started
// already: they name the cache and wrap ErrClosed, ErrNotStarted and
// ErrAlreadyStarted. A call that fails because the client is closed wraps
// ErrClosed as the client says it.
var (
	errCacheClosed         = errs.Named("zkrecipes: cache is closed", ErrClosed)
	errCacheNotStarted     = errs.Named("zkrecipes: cache is not started", ErrNotStarted)
	errCacheAlreadyStarted = errs.Named("zkrecipes: cache is already started", ErrAlreadyStarted)
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every call on a Cache not made by New.
func errZero() error { return invalidArg("zero or nil Cache: make one with New") }
