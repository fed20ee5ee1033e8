package queue

import (
	"context"
	"errors"
	"sync"
)

var (
	// ErrNotHeld is returned when releasing a slot that does not hold.
	ErrNotHeld = errors.New("zkrecipes: lock not held by this handle")
	// ErrLost is returned by a reentrant acquire on a slot whose holding was
	// lost: release it (as often as it was acquired) before acquiring again.
	ErrLost = errors.New("zkrecipes: lock was lost")
)

// Reentrant is one handle's holding of one lock: the held node and how many
// times it was acquired. Acquire and Release are serialised by a semaphore
// that several slots may share (the read and write sides of one read/write
// lock handle share one, so each side can look at the other's state without
// a race). It is safe for concurrent use.
type Reentrant struct {
	sem chan struct{}

	mu    sync.Mutex
	held  *Held
	count int
}

// NewSemaphore returns a semaphore for NewReentrant.
func NewSemaphore() chan struct{} { return make(chan struct{}, 1) }

// NewReentrant returns an empty slot serialised by sem (see NewSemaphore).
func NewReentrant(sem chan struct{}) *Reentrant { return &Reentrant{sem: sem} }

// Acquire holds the slot once more if it holds already (ErrLost if that
// holding was lost); otherwise it calls acquire, with the semaphore held, and
// keeps the node it returns.
func (r *Reentrant) Acquire(ctx context.Context, acquire func(context.Context) (*Held, error)) error {
	if err := r.enter(ctx); err != nil {
		return err
	}
	defer r.leave()
	if h := r.Current(); h != nil {
		if isClosed(h.Lost()) {
			return ErrLost
		}
		r.mu.Lock()
		r.count++
		r.mu.Unlock()
		return nil
	}
	h, err := acquire(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.held, r.count = h, 1
	r.mu.Unlock()
	return nil
}

// Release undoes one Acquire; the last one releases the node (see Held.Release).
func (r *Reentrant) Release(ctx context.Context) error {
	if err := r.enter(ctx); err != nil {
		return err
	}
	defer r.leave()
	r.mu.Lock()
	h := r.held
	if h == nil {
		r.mu.Unlock()
		return ErrNotHeld
	}
	r.count--
	if r.count > 0 {
		r.mu.Unlock()
		return nil
	}
	r.held = nil
	r.mu.Unlock()
	return h.Release(ctx)
}

// Current is the held node, or nil.
func (r *Reentrant) Current() *Held {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

// Lost is the current holding's Lost channel, or a closed channel when the
// slot does not hold: ownership that does not exist cannot be guaranteed.
func (r *Reentrant) Lost() <-chan struct{} {
	if h := r.Current(); h != nil {
		return h.Lost()
	}
	return closedChan
}

// Token is the current holding's fencing token (its node's czxid), or 0.
func (r *Reentrant) Token() int64 {
	if h := r.Current(); h != nil {
		return h.Czxid()
	}
	return 0
}

// Node is the current holding's node path, or "".
func (r *Reentrant) Node() string {
	if h := r.Current(); h != nil {
		return h.Path()
	}
	return ""
}

func (r *Reentrant) enter(ctx context.Context) error {
	select {
	case r.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Reentrant) leave() { <-r.sem }

// Closed returns a channel that is always closed: the Lost channel of a
// handle that holds nothing.
func Closed() <-chan struct{} { return closedChan }

var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()
