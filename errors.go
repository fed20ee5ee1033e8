package zkrecipes

import (
	"errors"
	"fmt"
)

// The errors every package of zkrecipes shares, declared once here. A
// recipe's own errors (a counter's ErrMaybeApplied, discovery's
// ErrNotFound, ...) are declared in the recipe's package. Errors returned
// by the packages name the object they concern ("zkrecipes: cache is
// closed") and wrap one of these, so errors.Is(err, zkrecipes.ErrClosed)
// matches a closed client, cache, mutex or queue alike.
var (
	// ErrClosed is wrapped by the error of every call on a closed client,
	// or on a recipe after its Close.
	ErrClosed = errors.New("zkrecipes: closed")
	// ErrNotStarted is wrapped by the error of a call that needs Start
	// first.
	ErrNotStarted = errors.New("zkrecipes: not started")
	// ErrAlreadyStarted is wrapped by the error of a second Start.
	ErrAlreadyStarted = errors.New("zkrecipes: already started")
	// ErrInvalidArgument is wrapped by every error about a bad option or
	// argument (a nil client, an empty server list, a non-positive count or
	// duration, ...) and by every error of a zero value.
	ErrInvalidArgument = errors.New("zkrecipes: invalid argument")
	// ErrInvalidPath is wrapped by every *client.PathError: a path
	// ZooKeeper would reject, or one zkrecipes refuses (anything under
	// /zookeeper).
	ErrInvalidPath = errors.New("zkrecipes: invalid path")
	// ErrSessionLost is the cause a client.Session reports once ZooKeeper
	// expired it, or once the client gave it up after a whole session
	// timeout without a connection. Recipes wrap it when a call failed
	// because its session ended.
	ErrSessionLost = errors.New("zkrecipes: session lost")
	// ErrDeletePending is wrapped by the error of a call that had to delete
	// a node and could not finish in time: the client keeps deleting it in
	// the background for as long as the node's session lives (see
	// client.DeleteGuaranteed).
	ErrDeletePending = errors.New("zkrecipes: delete continues in the background")
	// ErrBusy is matched by the error of a try that found the holding
	// taken: a TryLock of a held lock (ErrLocked), a TryAcquire with no
	// lease free (recipes/semaphore's ErrNoLeases). The client's hooks
	// report such a try as busy: the answer a try exists to give, not a
	// failure.
	ErrBusy = errors.New("zkrecipes: holding is taken")
	// ErrLocked is matched by the error of a TryLock that would have to
	// wait; that error is a *LockedError naming the holder. It wraps
	// ErrBusy.
	ErrLocked error = &narrower{msg: "zkrecipes: lock is held", wider: ErrBusy}
	// ErrNotHeld is wrapped by the error of Unlock, Release, Token and the
	// like on a handle that does not hold.
	ErrNotHeld = errors.New("zkrecipes: not held by this handle")
	// ErrLost is wrapped by the error of a call on a holding that may be
	// gone (its Lost channel is closed: the connection was suspended, the
	// session lost, the node deleted), and is the cause of a holding's
	// context then. Release it, then take it again; that release returns
	// ErrLost too, having released all the same, so the caller learns that
	// its critical section may have overlapped another holder's.
	ErrLost = errors.New("zkrecipes: holding was lost")
	// ErrNodeDeleted is the cause a lock or election reports when its own
	// node was deleted under it (by an operator, or with its session) until
	// the retry policy gave up queueing again.
	ErrNodeDeleted = errors.New("zkrecipes: contender's node was deleted")
	// ErrUpgrade is wrapped by the error of a read/write lock's Lock with a
	// context that carries the same handle's read holding: it would wait
	// for itself forever.
	ErrUpgrade = errors.New("zkrecipes: cannot take the write lock while holding the read lock")
)

// LockedError is the error of a TryLock that would have to wait. It
// matches ErrLocked (and so ErrBusy) and names who holds the lock: the
// first node of the queue, or, when Local is true, the very handle the
// TryLock was called on (another goroutine holds it).
type LockedError struct {
	// Node is the holder's node path (relative to the client's namespace);
	// "" when it could not be read.
	Node string
	// Data is the holder's node data: by default the holder's IP address,
	// as Curator writes it.
	Data []byte
	// Local reports that another goroutine holds (or is acquiring) this
	// same handle.
	Local bool
}

// Error names the holder (or says that it is this handle's own goroutine).
func (e *LockedError) Error() string {
	who := e.Node
	if who == "" {
		who = "another contender"
	}
	if e.Local {
		return fmt.Sprintf("zkrecipes: lock is held by another goroutine of this handle (%s)", who)
	}
	if len(e.Data) > 0 {
		return fmt.Sprintf("zkrecipes: lock is held by %s (%q)", who, e.Data)
	}
	return fmt.Sprintf("zkrecipes: lock is held by %s", who)
}

// Unwrap lets errors.Is match ErrLocked and ErrBusy.
func (e *LockedError) Unwrap() error { return ErrLocked }

// narrower is a sentinel that is a kind of a wider one: errors.Is matches
// both, and its message is its own alone.
type narrower struct {
	msg   string
	wider error
}

func (e *narrower) Error() string { return e.msg }

func (e *narrower) Unwrap() error { return e.wider }
