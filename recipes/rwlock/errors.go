package rwlock

import (
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The errors of this package: those of package mutex, plus ErrUpgrade.
var (
	// ErrLocked is matched by the error of TryLock and TryRLock when they
	// would wait; that error is a *LockedError naming the holder.
	ErrLocked = mutex.ErrLocked
	// ErrNotHeld is returned by Unlock, RUnlock and Downgrade on a side this
	// handle does not hold.
	ErrNotHeld = mutex.ErrNotHeld
	// ErrLost is returned by a reentrant lock, Token or Downgrade on a
	// holding that may be gone.
	ErrLost = mutex.ErrLost
	// ErrUpgrade is returned by Lock with a context that carries this
	// handle's read holding: that upgrade would wait for itself forever.
	ErrUpgrade = queue.ErrUpgrade
	// ErrInvalidArgument is wrapped by errors about bad arguments and by
	// every error of a zero RWMutex.
	ErrInvalidArgument = mutex.ErrInvalidArgument
	// ErrDeletePending is wrapped by an unlock whose node delete goes on in
	// the background.
	ErrDeletePending = mutex.ErrDeletePending
)

// LockedError is the error of a TryLock or TryRLock that would wait.
type LockedError = mutex.LockedError
