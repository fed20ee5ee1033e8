package cache

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of a call on a cache that is closed, not started, or started
// already: they name the cache and wrap zkrecipes.ErrClosed, zkrecipes.ErrNotStarted and
// zkrecipes.ErrAlreadyStarted. A call that fails because the client is closed wraps
// zkrecipes.ErrClosed as the client says it.
var (
	errCacheClosed         = errs.Named("zkrecipes: cache is closed", zkrecipes.ErrClosed)
	errCacheNotStarted     = errs.Named("zkrecipes: cache is not started", zkrecipes.ErrNotStarted)
	errCacheAlreadyStarted = errs.Named("zkrecipes: cache is already started", zkrecipes.ErrAlreadyStarted)
)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", zkrecipes.ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// errZero is the error of every call on a Cache not made by New.
func errZero() error { return invalidArg("zero or nil Cache: make one with New") }
