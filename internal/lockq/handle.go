package lockq

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// errZero is returned by every method of a zero handle.
var errZero = fmt.Errorf("%w: zero value: make lock handles with their package's New", zkrecipes.ErrInvalidArgument)

// Handle is one lock handle: the request its acquisitions start from, the
// local gate its goroutines pass, and the holding they share. Goroutines
// sharing an exclusive handle exclude each other, as with sync.Mutex; those
// sharing a shared handle (a read side) share one holding. Reentrancy is
// explicit: a context from Context carries the holding, and Lock with it
// counts one more level instead of waiting.
type Handle struct {
	q      *Queue
	req    Request
	local  *Local
	shared bool
	peer   *Handle // the other side of a read/write handle, or nil

	// guarded by local.mu
	held      *Held
	count     int  // levels of the holding
	acquiring bool // shared: a goroutine is acquiring the holding
}

// NewHandle returns a handle on the lock at dir. It does no I/O.
func NewHandle[O ~func(*Options) error](c *client.Client, dir string, opts []O) (*Handle, error) {
	o, err := prepare(c, dir, opts)
	if err != nil {
		return nil, err
	}
	h := &Handle{
		q: New(c, dir, o.Markers...),
		req: Request{
			Marker: o.Marker, Data: o.Data, Predicate: o.Predicate, Wait: true,
			LostOnSessionLossOnly: o.LostOnSessionLossOnly, OnRevoke: o.OnRevoke,
			Recipe: o.Recipe,
		},
		local:  o.Local,
		shared: o.Shared,
	}
	if o.Made != nil {
		o.Made(h)
	}
	return h, nil
}

// Pair makes a and b the two sides of one read/write handle: they must share
// one Local, and one of them must be shared (the read side).
func Pair(a, b *Handle) {
	a.peer, b.peer = b, a
}

// holdingKey is the context key under which Context puts a holding.
type holdingKey struct{ h *Handle }

// carried returns the holding of handle h that ctx carries, if it is h's
// current holding. local.mu must be held.
func (h *Handle) carriedLocked(ctx context.Context) *Held {
	if h == nil || ctx == nil {
		return nil
	}
	held, _ := ctx.Value(holdingKey{h}).(*Held)
	if held == nil || held != h.held {
		return nil
	}
	return held
}

// Lock waits until the handle holds (see the type's doc), or ctx ends.
func (h *Handle) Lock(ctx context.Context) error { return h.lock(ctx, true) }

// TryLock holds at once or fails with a *zkrecipes.LockedError.
func (h *Handle) TryLock(ctx context.Context) error { return h.lock(ctx, false) }

func (h *Handle) lock(ctx context.Context, wait bool) error {
	if h == nil || h.q == nil {
		return errZero
	}
	if ctx == nil {
		return fmt.Errorf("%w: nil context", zkrecipes.ErrInvalidArgument)
	}
	l := h.local
	l.mu.Lock()
	if held := h.carriedLocked(ctx); held != nil { // reentry
		defer l.mu.Unlock()
		// Live, not Lost alone: Lost closes on the monitor's goroutine,
		// a moment after the session ended or the connection went; a
		// reentry in between must not succeed.
		if !held.Live() {
			return zkrecipes.ErrLost
		}
		h.count++
		if h.shared {
			l.readers++
		}
		return nil
	}
	if !h.shared && h.peer != nil && h.peer.carriedLocked(ctx) != nil {
		l.mu.Unlock()
		return zkrecipes.ErrUpgrade
	}
	// Not a reentry: a wait for a holding, reported to the client's hooks.
	ctx, done := access.StartAcquire(h.q.c, ctx, h.req.Recipe, h.q.dir)
	err := h.acquireLocked(ctx, wait) // unlocks l.mu
	done(err)
	return err
}

// acquireLocked takes the holding that lock asked for, past the local gate.
// l.mu is held on entry and released.
func (h *Handle) acquireLocked(ctx context.Context, wait bool) error {
	if h.shared {
		if w := h.peer.carriedLocked(ctx); w != nil && h.peer != nil {
			h.local.mu.Unlock()
			return h.lockUnderWrite(ctx, w)
		}
		return h.lockShared(ctx, wait) // unlocks l.mu
	}
	return h.lockExclusive(ctx, wait) // unlocks l.mu
}

// lockExclusive passes the gate, then queues in ZooKeeper. l.mu is held on
// entry and released.
func (h *Handle) lockExclusive(ctx context.Context, wait bool) error {
	l := h.local
	if err := h.admitLocked(ctx, wait, l.exclusiveFreeLocked, l.enterExclusiveLocked); err != nil {
		return err
	}
	l.mu.Unlock()
	held, err := h.q.Acquire(ctx, h.request(wait))
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.leaveExclusiveLocked()
		return err
	}
	h.held, h.count = held, 1
	return nil
}

// lockShared passes the gate as one reader level, then joins the handle's
// holding. l.mu is held on entry and released.
func (h *Handle) lockShared(ctx context.Context, wait bool) error {
	l := h.local
	if err := h.admitLocked(ctx, wait, l.sharedFreeLocked, l.enterSharedLocked); err != nil {
		return err
	}
	return h.joinLocked(ctx, wait, h.request(wait), nil)
}

// admitLocked passes the local gate with enter, or, for a TryLock (!wait)
// when free says the gate would make it wait, fails with a local
// *zkrecipes.LockedError. On error l.mu is released; on success it is still held.
func (h *Handle) admitLocked(ctx context.Context, wait bool, free func() bool, enter func(context.Context) error) error {
	err := error(nil)
	if !wait && !free() {
		err = h.localLockedErrorLocked()
	} else {
		err = enter(ctx)
	}
	if err != nil {
		h.local.mu.Unlock()
	}
	return err
}

// lockUnderWrite takes the read side while the caller holds the write side
// of the same handle (its context carries that holding): a read node at the
// writer's place, in the writer's session, with the writer's token, held at
// once. This is Curator's "read lock while holding the write lock", and the
// first half of a downgrade. The writer owns the gate, so no admission.
func (h *Handle) lockUnderWrite(ctx context.Context, w *Held) error {
	if !w.Live() {
		return zkrecipes.ErrLost
	}
	req := h.request(true)
	req.Suffix, _ = SortKey(w.Name(), h.q.markers)
	req.Predicate = Always
	req.Session = w.Session()
	tok, err := w.Token(ctx)
	if err != nil {
		return err
	}
	req.Token = tok
	l := h.local
	l.mu.Lock()
	l.readers++
	// The read node sorts at W's place and holds at once (Always), which is
	// only safe while W itself still holds: once W is released or lost, a
	// writer queued behind it may hold, and the read must not join it.
	still := func() bool { return h.peer.held == w && w.Live() }
	return h.joinLocked(ctx, true, req, still)
}

// joinLocked, for a reader level already counted in l.readers, joins the
// handle's holding, waits for the acquisition another goroutine is making,
// or makes it with req; if still is set, a holding it makes is kept only if
// still() holds once it is made (l.mu held), else it is released and the
// error is zkrecipes.ErrLost. l.mu is held on entry and released.
func (h *Handle) joinLocked(ctx context.Context, wait bool, req Request, still func() bool) error {
	l := h.local
	for {
		if h.held != nil {
			defer l.mu.Unlock()
			if !h.held.Live() {
				l.leaveSharedLocked(1)
				return zkrecipes.ErrLost
			}
			h.count++
			return nil
		}
		if !h.acquiring {
			break
		}
		if !wait {
			l.leaveSharedLocked(1)
			err := h.localLockedErrorLocked()
			l.mu.Unlock()
			return err
		}
		if err := l.waitLocked(ctx, func() bool { return !h.acquiring }); err != nil {
			l.leaveSharedLocked(1)
			l.mu.Unlock()
			return err
		}
	}
	h.acquiring = true
	l.mu.Unlock()
	held, err := h.q.Acquire(ctx, req)
	l.mu.Lock()
	h.acquiring = false
	l.broadcastLocked() // readers waiting for this acquisition
	if err == nil && still != nil && !still() {
		err = zkrecipes.ErrLost
	} else if err == nil {
		h.held, h.count = held, 1
		l.mu.Unlock()
		return nil
	}
	l.leaveSharedLocked(1)
	l.mu.Unlock()
	if held != nil {
		if rerr := held.Release(context.WithoutCancel(ctx)); rerr != nil && !errors.Is(rerr, zkrecipes.ErrDeletePending) {
			access.Logger(h.q.c).Warn("could not release a read taken after its write holding went", "node", held.Path(), "err", rerr)
		}
	}
	return err
}

func (h *Handle) request(wait bool) Request {
	r := h.req
	r.Wait = wait
	return r
}

// localLockedErrorLocked is TryLock's error when this handle is busy in
// this process.
func (h *Handle) localLockedErrorLocked() error {
	node := ""
	for _, s := range []*Handle{h, h.peer} {
		if s != nil && s.held != nil {
			node = s.held.Path()
		}
	}
	return &zkrecipes.LockedError{Node: node, Data: h.req.Data, Local: true}
}

// Unlock undoes one level of the holding, from any goroutine; the last one
// releases the node (see Held.Release). On a holding that was lost (see
// Held.Live) it does all the same, and then returns an error wrapping
// zkrecipes.ErrLost (and the release's error, if any): the critical section it ends
// may have overlapped another holder's.
func (h *Handle) Unlock(ctx context.Context) error {
	if h == nil || h.q == nil {
		return errZero
	}
	l := h.local
	l.mu.Lock()
	held := h.held
	if held == nil {
		l.mu.Unlock()
		return zkrecipes.ErrNotHeld
	}
	lost := !held.Live()
	h.count--
	if h.shared {
		l.leaveSharedLocked(1)
	}
	if h.count > 0 {
		l.mu.Unlock()
		if lost {
			return zkrecipes.ErrLost
		}
		return nil
	}
	h.held = nil
	if !h.shared {
		l.leaveExclusiveLocked()
	}
	l.mu.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	err := held.Release(ctx)
	if lost {
		if err != nil {
			return fmt.Errorf("%w (released: %w)", zkrecipes.ErrLost, err)
		}
		return zkrecipes.ErrLost
	}
	return err
}

// Downgrade turns the write holding of this exclusive side (held once, not
// reentered) into a read holding of its peer at the same place in the
// queue, with the same token, then releases the write node. Between the two
// steps both are held, so no writer can slip in.
func (h *Handle) Downgrade(ctx context.Context) error {
	if h == nil || h.q == nil || h.peer == nil {
		return errZero
	}
	if ctx == nil {
		return fmt.Errorf("%w: nil context", zkrecipes.ErrInvalidArgument)
	}
	l := h.local
	l.mu.Lock()
	held, n := h.held, h.count
	switch {
	case held == nil:
		l.mu.Unlock()
		return zkrecipes.ErrNotHeld
	case !held.Live():
		l.mu.Unlock()
		return zkrecipes.ErrLost
	case n != 1:
		l.mu.Unlock()
		return fmt.Errorf("%w: the write lock is held %d times; unlock the inner levels before Downgrade", zkrecipes.ErrInvalidArgument, n)
	}
	h.count++ // pinned: no Unlock (or second Downgrade) releases it meanwhile
	l.mu.Unlock()
	err := h.peer.lockUnderWrite(ctx, held)
	l.mu.Lock()
	h.count-- // unpinned
	if err != nil {
		l.mu.Unlock()
		return err // the read failed: the write holding is kept as it was
	}
	h.count-- // the write level Downgrade turns into the read
	if h.count > 0 {
		// Another goroutine reentered the write holding meanwhile (with its
		// context): its Unlock releases the write.
		l.mu.Unlock()
		return nil
	}
	h.held = nil
	l.leaveExclusiveLocked()
	l.mu.Unlock()
	if rerr := held.Release(ctx); rerr != nil && !errors.Is(rerr, zkrecipes.ErrDeletePending) {
		// The downgrade happened: the read holds. The write node goes with
		// its session if its delete cannot be done.
		access.Logger(h.q.c).Warn("downgraded, but the write node's delete failed", "node", held.Path(), "err", rerr)
	}
	return nil
}

// Context returns a context that is cancelled when the current holding is
// lost (cause zkrecipes.ErrLost) or released (cause zkrecipes.ErrNotHeld), and that carries the
// holding: Lock with it, or with a context derived from it, reenters. On a
// handle that does not hold, the context is cancelled already (zkrecipes.ErrNotHeld).
func (h *Handle) Context(parent context.Context) (context.Context, context.CancelFunc) {
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	held := h.current()
	if held == nil {
		cancel(zkrecipes.ErrNotHeld)
		return ctx, func() {}
	}
	held.Live() // closes Lost now if the holding is gone already
	go func() {
		select {
		case <-held.Lost():
			cancel(held.Cause())
		case <-ctx.Done():
		}
	}()
	return context.WithValue(ctx, holdingKey{h}, held), func() { cancel(context.Canceled) }
}

// current is the holding, or nil.
func (h *Handle) current() *Held {
	if h == nil || h.q == nil {
		return nil
	}
	h.local.mu.Lock()
	defer h.local.mu.Unlock()
	return h.held
}

// IsHeld reports whether the handle holds a holding that is not lost: it is
// false once Lost is closed (see Held.Live), even while the lost holding
// still waits for its Unlock (which then returns zkrecipes.ErrLost).
func (h *Handle) IsHeld() bool {
	held := h.current()
	return held != nil && held.Live()
}

// Lost is the current holding's Lost channel, or a closed channel when the
// handle does not hold: ownership that does not exist cannot be guaranteed.
// A holding found gone (see Held.Live) has its channel closed at once.
func (h *Handle) Lost() <-chan struct{} {
	if held := h.current(); held != nil {
		held.Live()
		return held.Lost()
	}
	return closedChan
}

// Token is the current holding's fencing token; zkrecipes.ErrNotHeld without a
// holding, zkrecipes.ErrLost once it may be gone. Never 0 with a nil error.
func (h *Handle) Token(ctx context.Context) (int64, error) {
	if h == nil || h.q == nil {
		return 0, errZero
	}
	if ctx != nil && ctx.Err() != nil {
		return 0, ctx.Err()
	}
	held := h.current()
	switch {
	case held == nil:
		return 0, zkrecipes.ErrNotHeld
	case !held.Live():
		return 0, zkrecipes.ErrLost
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return held.Token(ctx)
}

// Node is the current holding's node path, or "".
func (h *Handle) Node() string {
	if held := h.current(); held != nil {
		return held.Path()
	}
	return ""
}

// Path is the lock's directory ("" for a zero handle).
func (h *Handle) Path() string {
	if h == nil || h.q == nil {
		return ""
	}
	return h.q.Dir()
}

// OwnerCheck returns an op for client.Multi that lets the transaction commit
// only while this holding's node exists (etcd's IsOwner). The node is
// ephemeral and deleted on release, so the check fails once the holding is
// released or its session is gone.
func (h *Handle) OwnerCheck() (*zk.CheckVersionRequest, error) {
	if h == nil || h.q == nil {
		return nil, errZero
	}
	held := h.current()
	if held == nil {
		return nil, zkrecipes.ErrNotHeld
	}
	return &zk.CheckVersionRequest{Path: held.Path(), Version: -1}, nil
}

// Participants lists the contenders in queue order, holders first.
func (h *Handle) Participants(ctx context.Context) ([]Participant, error) {
	if h == nil || h.q == nil {
		return nil, errZero
	}
	return h.q.Participants(ctx)
}

// Client is the handle's client (nil for a zero handle).
func (h *Handle) Client() *client.Client {
	if h == nil || h.q == nil {
		return nil
	}
	return h.q.c
}
