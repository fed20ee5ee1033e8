package semaphore

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes"
)

// The errors of this package. The errors it shares with the others are
// zkrecipes' (ErrClosed, ErrInvalidArgument, ErrLost, ...).
var (
	// ErrNoLeases is returned by TryAcquire when no lease is free. It
	// also matches zkrecipes.ErrBusy, by which the client's hooks tell a try
	// that found no room from a failed one.
	ErrNoLeases error = busyError("zkrecipes: no lease is free")
	// ErrLeaseDeleted is the cause an acquire reports when its lease node
	// kept vanishing while it waited (deleted by someone, or with its
	// session) until the retry policy gave up.
	ErrLeaseDeleted = errors.New("zkrecipes: lease node was deleted while waiting")
	// ErrTooManyLeases is wrapped (with zkrecipes.ErrInvalidArgument) by AcquireN's
	// error when it asks for more leases than the semaphore's limit: it
	// would wait forever.
	ErrTooManyLeases = errors.New("zkrecipes: more leases asked for than the semaphore allows")
	// ErrMaxConflict is wrapped by a *MaxConflictError: WithLimitCheck
	// found another limit written on the semaphore's node.
	ErrMaxConflict = errors.New("zkrecipes: semaphore limit differs from the one its other users set")
)

// busyError is a sentinel that also matches zkrecipes.ErrBusy.
type busyError string

func (e busyError) Error() string { return string(e) }

// Is lets errors.Is(err, zkrecipes.ErrBusy) match.
func (busyError) Is(target error) bool { return target == zkrecipes.ErrBusy }

// MaxConflictError is an acquire's error when WithLimitCheck finds that the
// semaphore's users disagree on its limit. It wraps ErrMaxConflict.
type MaxConflictError struct {
	Path   string // the semaphore's path
	Local  int    // this handle's limit
	Stored int    // the limit written on the semaphore's node
}

// Error names both limits.
func (e *MaxConflictError) Error() string {
	return fmt.Sprintf("zkrecipes: semaphore %s: this handle allows %d leases, but its node says %d", e.Path, e.Local, e.Stored)
}

// Unwrap lets errors.Is(err, ErrMaxConflict) match.
func (e *MaxConflictError) Unwrap() error { return ErrMaxConflict }

// errForeignNode means a lease node's create came back in another session
// than the current one (go-zookeeper replayed it): never hold on it.
var errForeignNode = errors.New("zkrecipes: lease node belongs to another session")

// errMutexLost means the `locks` mutex was lost (its session ended or its
// node was deleted) while its holder waited for leases: another acquirer
// may be waiting beside it, and two waiters can wait for each other forever.
// The waiter gives its nodes up and starts again.
var errMutexLost = errors.New("zkrecipes: the semaphore's locks mutex was lost while waiting")

// errZero is the error of every method of a zero Semaphore or Lease.
var errZero = fmt.Errorf("%w: zero value: make semaphores with New and leases with Acquire", zkrecipes.ErrInvalidArgument)
