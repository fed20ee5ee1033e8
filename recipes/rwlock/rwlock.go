package rwlock

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The node markers, as in Curator (both eight characters).
const (
	ReadLockName  = "__READ__"
	WriteLockName = "__WRIT__"
)

// RWMutex is one handle on a distributed read/write lock: two lock handles,
// a read side and a write side, on one path and one local gate. A zero
// RWMutex returns an error wrapping zkrecipes.ErrInvalidArgument from every method.
type RWMutex struct {
	read, write *mutex.Mutex
	wh          *lockq.Handle
}

// Option configures a RWMutex (both of its sides).
type Option func(*options) error

// options are the settings of both sides' handles.
type options = lockq.Options

// WithData sets the lock nodes' data (default: this host's IP address, as Curator).
func WithData(data []byte) Option { return Option(mutex.WithData(data)) }

// WithRevocationListener registers f, called on its own goroutine when
// another process writes Curator's revocation marker into a node this handle
// holds (see mutex.Revoke, which works on any lock node). A nil f is an
// error wrapping zkrecipes.ErrInvalidArgument from New.
func WithRevocationListener(f func()) Option { return Option(mutex.WithRevocationListener(f)) }

// WithLostOnSessionLossOnly makes Lost close only when the session is lost,
// not already when the connection is suspended (see package mutex).
func WithLostOnSessionLossOnly() Option { return Option(mutex.WithLostOnSessionLossOnly()) }

// New returns a handle on the read/write lock at path (relative to the
// client's namespace). It does no I/O.
func New(c *client.Client, path string, opts ...Option) (*RWMutex, error) {
	local := lockq.NewLocal()
	markers := []string{ReadLockName, WriteLockName}
	var rh, wh *lockq.Handle
	side := func(marker, recipe string, pred lockq.Predicate, shared bool, made **lockq.Handle) []mutex.Option {
		sideOpts := make([]mutex.Option, 0, len(opts)+1)
		for _, o := range opts {
			sideOpts = append(sideOpts, mutex.Option(o))
		}
		return append(sideOpts, func(o *lockq.Options) error {
			o.Marker, o.Markers, o.Predicate, o.Recipe = marker, markers, pred, recipe
			o.Shared, o.Local = shared, local
			o.Made = func(h *lockq.Handle) { *made = h }
			return nil
		})
	}
	read, err := mutex.New(c, path, side(ReadLockName, client.RecipeReadLock, lockq.Reader(WriteLockName), true, &rh)...)
	if err != nil {
		return nil, err
	}
	write, err := mutex.New(c, path, side(WriteLockName, client.RecipeWriteLock, lockq.Writer(WriteLockName), false, &wh)...)
	if err != nil {
		return nil, err
	}
	lockq.Pair(rh, wh)
	return &RWMutex{read: read, write: write, wh: wh}, nil
}

// ReadLock returns the read side: several goroutines that lock it share
// the handle's one read node. A zero RWMutex gives a zero Mutex.
func (rw *RWMutex) ReadLock() *mutex.Mutex {
	if rw.read == nil {
		return &mutex.Mutex{}
	}
	return rw.read
}

// WriteLock returns the write side: goroutines that lock it exclude each
// other and the handle's readers, as with sync.RWMutex.
func (rw *RWMutex) WriteLock() *mutex.Mutex {
	if rw.write == nil {
		return &mutex.Mutex{}
	}
	return rw.write
}

// Lock takes the write lock. It waits for this handle's readers and writer
// in the process first. With a context that carries this handle's read
// holding (from ReadLock().Context) it fails with zkrecipes.ErrUpgrade.
func (rw *RWMutex) Lock(ctx context.Context) error { return rw.WriteLock().Lock(ctx) }

// TryLock takes the write lock if it is free, else fails with a *zkrecipes.LockedError.
func (rw *RWMutex) TryLock(ctx context.Context) error { return rw.WriteLock().TryLock(ctx) }

// Unlock releases the write lock once.
func (rw *RWMutex) Unlock(ctx context.Context) error { return rw.WriteLock().Unlock(ctx) }

// RLock takes the read lock, sharing the handle's read node with its other
// readers. It waits while this handle's writer holds or waits. With a
// context that carries this handle's write holding (from
// WriteLock().Context) it takes the read lock at once beside the write
// lock, as Curator allows; Downgrade does that and releases the write lock.
func (rw *RWMutex) RLock(ctx context.Context) error { return rw.ReadLock().Lock(ctx) }

// TryRLock takes the read lock if no writer is ahead, else fails with a *zkrecipes.LockedError.
func (rw *RWMutex) TryRLock(ctx context.Context) error { return rw.ReadLock().TryLock(ctx) }

// RUnlock releases the read lock once.
func (rw *RWMutex) RUnlock(ctx context.Context) error { return rw.ReadLock().Unlock(ctx) }

// Downgrade turns the handle's write holding (locked once, not reentered)
// into a read holding at the same place in the queue, with the same fencing
// token, then releases the write node: no writer can come between. It fails
// with zkrecipes.ErrNotHeld without a write holding and zkrecipes.ErrLost if that holding may be
// gone.
func (rw *RWMutex) Downgrade(ctx context.Context) error {
	if rw.wh == nil {
		return (&mutex.Mutex{}).Unlock(ctx) // the zero value's error
	}
	return rw.wh.Downgrade(ctx)
}

// Path returns the lock's path.
func (rw *RWMutex) Path() string { return rw.WriteLock().Path() }

// Participant is one contender, as listed by Participants.
type Participant = mutex.Participant

// Participants lists readers and writers in queue order; Marker tells which is which.
func (rw *RWMutex) Participants(ctx context.Context) ([]Participant, error) {
	return rw.WriteLock().Participants(ctx)
}
