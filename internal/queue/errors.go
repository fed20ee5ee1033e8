package queue

import (
	"errors"
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The errors every lock recipe returns; recipes re-export them under the
// same names, so errors.Is works whichever package a caller names.
var (
	// ErrLocked is returned by a TryLock that would have to wait. The error
	// is a *LockedError naming the holder.
	ErrLocked = errors.New("zkrecipes: lock is held")
	// ErrNotHeld is returned by Unlock, Token and the like on a handle that
	// does not hold.
	ErrNotHeld = errors.New("zkrecipes: lock is not held by this handle")
	// ErrLost is returned by calls on a holding that may be gone (its Lost
	// channel is closed, or Held.Live found it gone): Unlock it, then lock
	// again. That Unlock returns it too, having released all the same.
	ErrLost = errors.New("zkrecipes: lock holding was lost")
	// ErrNodeDeleted means a contender's own node was deleted under it (by an
	// operator, or with its session). A waiter re-queues after it; it reaches
	// a caller only once the retry policy gives up.
	ErrNodeDeleted = errors.New("zkrecipes: lock node was deleted")
	// ErrUpgrade is returned when the goroutine that holds a read lock (its
	// context carries the holding) asks for the write lock of the same
	// handle: it would wait for itself forever.
	ErrUpgrade = errors.New("zkrecipes: cannot take the write lock while holding the read lock")
	// errForeignNode means the node a create returned belongs to another
	// session than the one it was created for: go-zookeeper replayed the
	// create into a newer session. The node is deleted and the contender
	// queues again.
	errForeignNode = errors.New("zkrecipes: lock node belongs to another session")
)

// LockedError is the error of a TryLock that would have to wait. It wraps
// ErrLocked and names who holds the lock: the first node of the queue, or,
// when Local is true, this very handle (another goroutine holds it).
type LockedError struct {
	// Node is the holder's node path (relative to the client's namespace);
	// "" when it could not be read.
	Node string
	// Data is the holder's node data: by default the holder's IP address, as
	// Curator writes it.
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
		return fmt.Sprintf("%v: by another goroutine of this handle (%s)", ErrLocked, who)
	}
	if len(e.Data) > 0 {
		return fmt.Sprintf("%v: by %s (%q)", ErrLocked, who, e.Data)
	}
	return fmt.Sprintf("%v: by %s", ErrLocked, who)
}

// Unwrap lets errors.Is match ErrLocked, and client.ErrBusy: the client's
// hooks report a TryLock that found the lock held as busy, not failed.
func (e *LockedError) Unwrap() []error { return []error{ErrLocked, client.ErrBusy} }
