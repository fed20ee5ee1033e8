package semaphore

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Acquire waits until it holds one lease, or ctx ends (see the package
// documentation for what it leaves behind then: nothing).
func (s *Semaphore) Acquire(ctx context.Context) (*Lease, error) {
	leases, err := s.acquire(ctx, 1, true)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// TryAcquire takes one lease if one is free, else fails at once with
// ErrNoLeases, leaving no node behind. While another acquirer holds the
// semaphore's `locks` mutex and a lease is free, it waits for that mutex
// (a short wait); once the leases are all taken it gives up.
func (s *Semaphore) TryAcquire(ctx context.Context) (*Lease, error) {
	leases, err := s.acquire(ctx, 1, false)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// AcquireN waits until it holds n leases at once, or ctx ends. All n are
// taken inside one hold of the `locks` mutex, so two acquirers of several
// leases can never each hold part of what they need and wait for each other
// (see the package documentation). n must be between 1 and the limit: more
// would wait forever, and fails at once (ErrTooManyLeases).
func (s *Semaphore) AcquireN(ctx context.Context, n int) ([]*Lease, error) {
	return s.acquire(ctx, n, true)
}

func (s *Semaphore) acquire(ctx context.Context, n int, wait bool) ([]*Lease, error) {
	switch {
	case !s.valid():
		return nil, errZero
	case ctx == nil:
		return nil, errs.Invalid("nil context")
	case n <= 0:
		return nil, errs.Invalid("asks for %d leases", n)
	case s.count == nil && n > s.max:
		return nil, fmt.Errorf("%w: %w: %d of at most %d", zkrecipes.ErrInvalidArgument, ErrTooManyLeases, n, s.max)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx, done := access.StartAcquire(s.c, ctx, s.recipe, s.path)
	leases, err := s.acquireReported(ctx, n, wait)
	done(err)
	return leases, err
}

// acquireReported is acquire once its arguments are checked and its wait
// reported to the client's hooks.
func (s *Semaphore) acquireReported(ctx context.Context, n int, wait bool) ([]*Lease, error) {
	attempt := func() ([]*Lease, error) {
		if n == 1 && !s.o.limitCheck && !s.slow.Load() {
			lease, ok, err := s.fastAcquire(ctx)
			if ok {
				return []*Lease{lease}, nil
			}
			if err == nil {
				s.slow.Store(true) // contended: Curator's way until it is not
			} else if !requeues(err) {
				return nil, err
			}
		}
		return s.attempt(ctx, n, wait)
	}
	lostPlace := func(err error) bool { return wait && requeues(err) }
	return lockq.Again(ctx, s.c, "semaphore waiter", s.path, attempt, lostPlace)
}

// requeues reports whether a failed attempt may simply be made again: the
// waiter lost its nodes (session or deletion), not its reason to wait.
func requeues(err error) bool {
	return errors.Is(err, zkrecipes.ErrSessionLost) || errors.Is(err, ErrLeaseDeleted) ||
		errors.Is(err, errForeignNode) || errors.Is(err, errMutexLost) || retry.IsSessionExpired(err)
}

// attempt is Curator's protocol, once: take the `locks` mutex, create the
// lease nodes, wait until they fit, release the mutex. Every way out that
// does not hold deletes the lease nodes it made, then releases the mutex.
func (s *Semaphore) attempt(ctx context.Context, n int, wait bool) ([]*Lease, error) {
	if err := s.lockMutex(ctx, wait); err != nil {
		return nil, err
	}
	if s.o.limitCheck {
		if err := s.checkLimit(ctx); err != nil {
			s.unlock()
			return nil, err
		}
	}
	nodes, first, err := s.createLeases(ctx, n)
	if err != nil {
		s.unlock()
		return nil, err
	}
	disc, room, err := s.waitFit(ctx, nodes, first, wait)
	if err != nil {
		s.abandon(nodes...)
		s.unlock()
		return nil, err
	}
	if room {
		s.slow.Store(false) // leases to spare: the fast path may do next time
	}
	if s.o.lostOnSessionLossOnly {
		disc = nil
	}
	leases := make([]*Lease, len(nodes))
	for i, node := range nodes {
		leases[i] = s.newLease(node, disc)
	}
	// The leases are held: the mutex's release need not be waited for (it
	// is still a guaranteed delete, and this handle's next acquire waits for
	// it in the process).
	go s.unlock()
	return leases, nil
}

// lockMutex takes the `locks` mutex. A try (wait false) gives up with
// ErrNoLeases as soon as the leases directory is full while it waits.
func (s *Semaphore) lockMutex(ctx context.Context, wait bool) error {
	if wait {
		return s.lock.Lock(ctx)
	}
	lctx, cancel := context.WithCancelCause(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if s.watchFull(lctx) {
			cancel(ErrNoLeases)
		}
	}()
	err := s.lock.Lock(lctx)
	cancel(nil)
	<-watched
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(lctx), ErrNoLeases) {
		return ErrNoLeases
	}
	return err
}

// watchFull reports true as soon as the leases directory has at least the
// limit's number of children, false when ctx ends first (or it cannot tell).
func (s *Semaphore) watchFull(ctx context.Context) bool {
	var w *client.Watch
	defer func() { w.Stop() }()
	for {
		w.Stop()
		kids, _, cw, err := s.c.ChildrenWatch(ctx, s.leases)
		w = cw
		if errors.Is(err, zk.ErrNoNode) {
			var ok bool
			ok, _, w, err = s.c.ExistsWatch(ctx, s.leases)
			if err == nil && ok {
				continue
			}
		}
		if err != nil {
			<-ctx.Done()
			return false
		}
		lim, err := s.limit()
		if err != nil {
			<-ctx.Done()
			return false
		}
		if len(kids) >= lim {
			return true
		}
		select {
		case <-w.Events():
		case <-ctx.Done():
			return false
		}
	}
}

// createLeases creates n lease nodes in one session; on error it deletes
// those it made. Beside the last create it sends the first listing of the
// leases directory (see lockq.Listing).
func (s *Semaphore) createLeases(ctx context.Context, n int) ([]client.ProtectedNode, *lockq.Listing, error) {
	nodes := make([]client.ProtectedNode, 0, n)
	var first *lockq.Listing
	for i := range n {
		if i == n-1 {
			first = lockq.StartListing(ctx, s.c, s.leases, true)
		}
		node, err := s.c.CreateProtected(ctx, path.Join(s.leases, LeaseName), s.o.data, zk.FlagEphemeralSequential)
		if err != nil {
			s.abandon(nodes...)
			return nil, nil, err
		}
		nodes = append(nodes, node)
		// All the lease nodes must be of one session, the live one (see
		// lockq.Replayed).
		if node.Session != nodes[0].Session || lockq.Replayed(s.c, node) {
			s.abandon(nodes...)
			return nil, nil, errForeignNode
		}
	}
	return nodes, first, nil
}

// waitFit lists the leases directory with a watch until all of nodes are
// among at most the limit's number of children (holding), ctx ends, the
// session ends, a node vanished, the limit cannot be read, or the locks
// mutex was lost (see errMutexLost). It returns the Disconnected channel
// taken before the listing that granted (a grant is only made on a view
// taken while the connection stayed up), and whether that listing left room
// to spare. first, when not nil, is a listing already under way (see
// lockq.Listing); a shared count's changes wake the wait.
func (s *Semaphore) waitFit(ctx context.Context, nodes []client.ProtectedNode, first *lockq.Listing, wait bool) (<-chan struct{}, bool, error) {
	sess := nodes[0].Session
	mutexLost := s.lock.Lost()
	names := make([]string, len(nodes))
	for i, node := range nodes {
		names[i] = path.Base(node.Path)
	}
	var limitChanged <-chan shared.Value
	if s.count != nil {
		ch, cancel := s.count.Events()
		defer cancel()
		limitChanged = ch
	}
	var w *client.Watch // the leases' children: given up whenever the wait ends
	defer func() { w.Stop() }()
	for {
		if lockq.IsClosed(sess.Done()) {
			return nil, false, fmt.Errorf("zkrecipes: waiting for a lease: %w", sess.Err())
		}
		if lockq.IsClosed(mutexLost) {
			return nil, false, errMutexLost
		}
		w.Stop()
		kids, lw, disc, ok, err := first.Take(ctx, names...)
		first = nil
		w = lw
		if !ok && err == nil {
			disc = s.c.Disconnected()
			kids, _, w, err = s.c.ChildrenWatch(ctx, s.leases)
		}
		if errors.Is(err, zk.ErrNoNode) {
			return nil, false, ErrLeaseDeleted // the directory went, so did our nodes
		}
		if err != nil {
			return nil, false, err
		}
		for _, name := range names {
			if !slices.Contains(kids, name) {
				return nil, false, ErrLeaseDeleted
			}
		}
		lim, err := s.limit()
		if err != nil {
			return nil, false, err
		}
		if len(kids) <= lim {
			if !lockq.IsClosed(disc) {
				return disc, len(kids) < lim, nil
			}
			continue // look again on a connection that stays up
		}
		if !wait {
			return nil, false, ErrNoLeases
		}
		select {
		case <-w.Events():
		case <-limitChanged:
		case <-sess.Done():
		case <-mutexLost:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// cleanupWithin bounds how long the mutex's release is waited for before it
// is left to the client's guaranteed delete.
const cleanupWithin = 2 * time.Second

// abandon deletes lease nodes an acquire made and no longer needs (see
// lockq.Abandon).
func (s *Semaphore) abandon(nodes ...client.ProtectedNode) { lockq.Abandon(s.c, nodes...) }

// unlock releases the `locks` mutex (a guaranteed delete of its node).
func (s *Semaphore) unlock() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupWithin)
	defer cancel()
	if err := s.lock.Unlock(ctx); err != nil && !errors.Is(err, zkrecipes.ErrDeletePending) {
		access.Logger(s.c).Warn("could not release the semaphore's locks mutex", "path", s.path, "err", err)
	}
}
