package semaphore

import (
	"context"
	"path"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// The fast path: one lease taken in one round trip, without the `locks`
// mutex, while the semaphore has room.
//
// Why it is safe. A lease is held by whoever's own listing of leases/,
// taken after its lease node was created, showed at most the limit's
// number of nodes; that is the rule of Curator's protocol too. Take any
// set of holders granted that way: the one whose listing came last saw
// every other holder's node, since each was created before its owner's
// listing and still exists (its owner holds it). So it counted them all,
// itself included, and there are at most the limit of them. The mutex adds
// nothing to that argument: what it gives is that only one acquirer at a
// time WAITS, so that waiters' nodes never keep each other out forever.
// The fast path never waits: when its listing shows no room, it deletes
// its node and takes Curator's way (and keeps to it until a grant shows
// room to spare again). A waiting mutex holder may count a fast-path node
// that is about to go; it waits at most until the node is deleted, a
// moment later.
//
// Fairness. A fast-path acquirer cannot overtake one that waits for room:
// the waiter's lease node exists, so the fast-path listing counts it, and
// a count that leaves room for the newcomer leaves room for the waiter.
// It may overtake acquirers queued in locks/ that have not yet made a lease
// node, but only while there is room for them too.
//
// Java acquirers see only lease nodes, as ever: the wire does not change.
// The lease create and the listing go out together; the listing counts
// only when it shows the new node (it went after the create), else the
// directory is listed again.

// fastAcquire tries the fast path once. ok is false (with a nil error) when
// it did not grant: the caller then follows the protocol. err is an error
// that ends the attempt, after the node was given up.
func (s *Semaphore) fastAcquire(ctx context.Context) (lease *Lease, ok bool, err error) {
	lim, err := s.limit()
	if err != nil {
		return nil, false, err
	}
	if lim < 1 {
		return nil, false, nil
	}
	leases := lockq.StartListing(ctx, s.c, s.leases, false)
	node, err := s.c.CreateProtected(ctx, path.Join(s.leases, LeaseName), s.o.data, zk.FlagEphemeralSequential)
	if err != nil {
		return nil, false, err
	}
	if lockq.Replayed(s.c, node) {
		s.abandon(node)
		return nil, false, errForeignNode
	}
	name := path.Base(node.Path)
	kids, _, disc, taken, err := leases.Take(ctx, name)
	if err == nil && !taken {
		disc = s.c.Disconnected()
		kids, _, err = s.c.Children(ctx, s.leases)
	}
	if err != nil {
		s.abandon(node)
		return nil, false, err
	}
	if lim, err = s.limit(); err != nil {
		s.abandon(node)
		return nil, false, err
	}
	if len(kids) > lim || !slices.Contains(kids, name) || lockq.IsClosed(disc) {
		s.abandon(node)
		return nil, false, nil
	}
	if s.o.lostOnSessionLossOnly {
		disc = nil
	}
	return s.newLease(node, disc), true, nil
}
