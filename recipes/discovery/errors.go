package discovery

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// The errors of this package. The errors it shares with the others are
// zkrecipes' (ErrClosed, ErrInvalidArgument, ...).
var (
	// ErrInvalidInstance is wrapped by an *InstanceError: an instance that
	// cannot be registered (no name or id, a name or id that is no node
	// name, a port out of range, an unknown service type, a payload that is
	// not JSON).
	ErrInvalidInstance = errors.New("zkrecipes: invalid service instance")
	// ErrBadData is wrapped by a *DataError: a node under the base path
	// whose data is not a service instance.
	ErrBadData = errors.New("zkrecipes: node data is not a service instance")
	// ErrNotFound is returned by QueryForInstance when the instance is not
	// registered.
	ErrNotFound = errors.New("zkrecipes: service instance not found")
	// ErrNotRegistered is wrapped by the error of Update and Unregister for
	// an instance id this Discovery has not registered.
	ErrNotRegistered = errors.New("zkrecipes: service instance not registered here")
	// ErrNoInstances is returned by a Provider's GetInstance when no
	// instance passes its filters.
	ErrNoInstances = errors.New("zkrecipes: no service instance available")
)

// InstanceError reports an instance that cannot be registered or written.
// It wraps ErrInvalidInstance.
type InstanceError struct {
	Name   string // the instance's name, as given
	ID     string // the instance's id, as given
	Field  string // the field at fault ("name", "id", "port", ...)
	Reason string // what is wrong with it
}

// Error names the instance, the field and what is wrong.
func (e *InstanceError) Error() string {
	return fmt.Sprintf("zkrecipes: invalid service instance (name %q, id %q): %s: %s", e.Name, e.ID, e.Field, e.Reason)
}

// Unwrap lets errors.Is(err, ErrInvalidInstance) match.
func (e *InstanceError) Unwrap() error { return ErrInvalidInstance }

// DataError reports data that does not decode as a service instance. It
// wraps ErrBadData; errors.Unwrap of its Err gives the decoder's error.
type DataError struct {
	Path string // the node's path, relative to the client's namespace ("" when not from a node)
	Err  error  // why it does not decode
}

// Error names the node and the decoder's complaint.
func (e *DataError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("zkrecipes: data is not a service instance: %v", e.Err)
	}
	return fmt.Sprintf("zkrecipes: node %s holds no service instance: %v", e.Path, e.Err)
}

// Unwrap lets errors.Is(err, ErrBadData) match, and errors.As reach Err.
func (e *DataError) Unwrap() []error { return []error{ErrBadData, e.Err} }

// errDiscoveryClosed is the error of a call on a closed Discovery: it
// names it and wraps zkrecipes.ErrClosed. A call that fails because the client is
// closed wraps zkrecipes.ErrClosed as the client says it.
var errDiscoveryClosed = errs.Named("zkrecipes: service discovery is closed", zkrecipes.ErrClosed)

// The errors of a call on a service cache or a provider that is closed,
// not started, or started already.
var (
	cacheErrors    = errs.NewLife("service cache")
	providerErrors = errs.NewLife("service provider")
)
