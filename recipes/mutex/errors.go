package mutex

import (
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
)

// The errors of this package (and of package rwlock, which re-exports them).
var (
	// ErrLocked is matched by the error of a TryLock that would wait; that
	// error is a *LockedError naming the holder.
	ErrLocked = queue.ErrLocked
	// ErrNotHeld is returned by Unlock, Token and OwnerCheck on a handle
	// that does not hold.
	ErrNotHeld = queue.ErrNotHeld
	// ErrLost is returned by a reentrant Lock or by Token once the holding
	// may be gone: Unlock, then Lock again. That Unlock returns it too
	// (having released the handle and deleted the node all the same): the
	// critical section may have overlapped another holder's.
	ErrLost = queue.ErrLost
	// ErrNodeDeleted is the cause a Lock reports when its node kept being
	// deleted under it until the retry policy gave up.
	ErrNodeDeleted = queue.ErrNodeDeleted
	// ErrInvalidArgument is wrapped by errors about bad arguments and by
	// every error of a zero Mutex.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrInvalidPath is wrapped by a *client.PathError for a bad lock path.
	ErrInvalidPath = client.ErrInvalidPath
	// ErrClosed is returned once the client is closed.
	ErrClosed = client.ErrClosed
	// ErrSessionLost is wrapped by a Lock that gave up after its session was
	// lost and the retry policy allowed no new place in the queue.
	ErrSessionLost = client.ErrSessionLost
	// ErrDeletePending is wrapped by an Unlock whose node delete goes on in
	// the background.
	ErrDeletePending = client.ErrDeletePending
)

// LockedError is the error of a TryLock that would wait: who holds the lock
// (Node, Data) or, when Local is true, that another goroutine holds this
// very handle. It wraps ErrLocked.
type LockedError = queue.LockedError
