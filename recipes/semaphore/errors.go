package semaphore

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The errors of this package. Those taken from package client are the same
// values, so errors.Is works whichever package a caller names.
var (
	// ErrNoLeases is returned by TryAcquire when no lease is free. It
	// also matches client.ErrBusy, by which the client's hooks tell a try
	// that found no room from a failed one.
	ErrNoLeases error = busyError("zkrecipes: no lease is free")
	// ErrNotHeld is returned by a Lease's Release and Token once the lease
	// was released.
	ErrNotHeld = errors.New("zkrecipes: lease is not held (released)")
	// ErrLost is returned by Token once the lease may be gone (its Lost
	// channel closed for a reason other than Release).
	ErrLost = errors.New("zkrecipes: lease was lost")
	// ErrLeaseDeleted is the cause an acquire reports when its lease node
	// kept vanishing while it waited (deleted by someone, or with its
	// session) until the retry policy gave up.
	ErrLeaseDeleted = errors.New("zkrecipes: lease node was deleted while waiting")
	// ErrTooManyLeases is wrapped (with ErrInvalidArgument) by AcquireN's
	// error when it asks for more leases than the semaphore's limit: it
	// would wait forever.
	ErrTooManyLeases = errors.New("zkrecipes: more leases asked for than the semaphore allows")
	// ErrMaxConflict is wrapped by a *MaxConflictError: WithLimitCheck
	// found another limit written on the semaphore's node.
	ErrMaxConflict = errors.New("zkrecipes: semaphore limit differs from the one its other users set")
	// ErrInvalidArgument is wrapped by errors about bad arguments (nil
	// client, limit <= 0, n <= 0, nil context, nil option) and by every
	// error of a zero Semaphore or Lease.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad path.
	ErrInvalidPath = client.ErrInvalidPath
	// ErrClosed is returned once the client is closed.
	ErrClosed = client.ErrClosed
	// ErrSessionLost is wrapped by an acquire that gave up after its
	// session was lost and the retry policy allowed no new attempt.
	ErrSessionLost = client.ErrSessionLost
	// ErrDeletePending is wrapped by a Release whose delete goes on in the
	// background (see client.DeleteGuaranteed).
	ErrDeletePending = client.ErrDeletePending
)

// busyError is a sentinel that also matches client.ErrBusy.
type busyError string

func (e busyError) Error() string { return string(e) }

// Is lets errors.Is(err, client.ErrBusy) match.
func (busyError) Is(target error) bool { return target == client.ErrBusy }

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
var errZero = fmt.Errorf("%w: zero value: make semaphores with New and leases with Acquire", ErrInvalidArgument)

func invalidArg(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}
