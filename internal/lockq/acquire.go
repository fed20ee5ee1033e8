package lockq

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Request describes one acquisition.
type Request struct {
	// Marker is the lock name of the node to create ("lock-", "__READ__", ...).
	Marker string
	// Suffix, when set, is appended to the marker and the node is created
	// EPHEMERAL rather than EPHEMERAL_SEQUENTIAL: the read/write lock's
	// downgrade node carries its writer's sequence number this way.
	Suffix string
	// Data is the node's data.
	Data []byte
	// Predicate decides holding.
	Predicate Predicate
	// Wait is false for a try-lock: return a *zkrecipes.LockedError rather than wait.
	Wait bool
	// LostOnSessionLossOnly makes Held.Lost close only when the session is
	// lost, not already when the connection is suspended.
	LostOnSessionLossOnly bool
	// OnRevoke, if set, is called (on its own goroutine) when someone writes
	// RevokeMarker into the held node.
	OnRevoke func()
	// Session, when set, is the session the node must be created in; an
	// acquire whose node lands in any other session fails with zkrecipes.ErrLost, and
	// is never retried. The read/write lock's downgrade sets it to its write
	// holding's session: a downgrade is only safe while that holding lives.
	Session *client.Session
	// Token, when set, is the holding's fencing token instead of its node's
	// czxid: a downgraded read holding continues its write holding, so it
	// keeps that holding's token and place.
	Token int64
	// ReadOwn makes the waiter read its own node while it waits (beside its
	// first listing), rather than leave the read to the holder's monitor:
	// the grant then comes with the token known and the node's owner
	// checked against its session, with no read after it. Elections set it:
	// a term must not start before both, and this keeps the read off the
	// handoff's critical path. It costs every contender that one read.
	ReadOwn bool
	// Recipe names the holding to the client's hooks (one of the
	// client.Recipe constants): its end is reported (client.Hooks.Released).
	// "" reports nothing.
	Recipe string
}

// Acquire creates the contender's node and waits until the predicate says it
// holds, ctx ends, the client closes, or the retry policy gives up. A waiter
// whose session is lost or whose node is deleted queues again with a new
// node: nothing was held, so there is nothing for the caller to learn. On
// every error return, the nodes it created are deleted (or being deleted:
// see client.DeleteGuaranteed).
func (q *Queue) Acquire(ctx context.Context, req Request) (*Held, error) {
	attempt := func() (*Held, error) { return q.attempt(ctx, req) }
	lostPlace := func(err error) bool { return req.Session == nil && req.Wait && requeues(err) }
	return Again(ctx, q.c, "lock waiter", q.dir, attempt, lostPlace)
}

// requeues reports whether a failed attempt leaves a waiter free to queue
// again: it lost its place (session or node), not its reason to wait.
func requeues(err error) bool {
	return errors.Is(err, zkrecipes.ErrSessionLost) || errors.Is(err, zkrecipes.ErrNodeDeleted) ||
		errors.Is(err, errForeignNode) || retry.IsSessionExpired(err)
}

// attempt is one place in the queue: create, wait, hold or clean up. Once
// a create in the directory has succeeded, the create carries the
// directory's first listing behind it, in the same write
// (access.CreateProtectedList): it costs no round trip of its own. (The
// first create may find no directory, and its listing would be wasted.)
func (q *Queue) attempt(ctx context.Context, req Request) (*Held, error) {
	flags := int32(zk.FlagEphemeralSequential)
	name := req.Marker
	if req.Suffix != "" {
		flags = zk.FlagEphemeral
		name += req.Suffix
	}
	w := &waiter{q: q, req: req, token: req.Token}
	if !q.dirSeen.Load() {
		node, err := q.c.CreateProtected(ctx, childPath(q.dir, name), req.Data, flags)
		if err != nil {
			return nil, err
		}
		q.dirSeen.Store(true)
		w.node = node
		return w.enter(ctx)
	}
	disc := q.c.Disconnected() // taken before the listing the create carries
	kids, listed, err := access.CreateProtectedList(q.c, ctx, childPath(q.dir, name), req.Data, flags, &w.node)
	if err != nil {
		return nil, err
	}
	if listed {
		w.listed, w.listedDisc = kids, disc
	}
	return w.enter(ctx)
}

// childPath is the path of dir's child name.
func childPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// waitOn is an attempt once its node is made: check the node's session, wait
// until it holds, or clean up.
func (q *Queue) waitOn(ctx context.Context, req Request, node client.ProtectedNode) (*Held, error) {
	w := &waiter{q: q, req: req, node: node, token: req.Token}
	return w.enter(ctx)
}

// enter is waitOn of w, whose node is made.
func (w *waiter) enter(ctx context.Context) (*Held, error) {
	q, req, node := w.q, w.req, w.node
	w.name = path.Base(node.Path)
	if w.token == 0 && node.Stat != nil && node.Session != nil && node.Stat.EphemeralOwner == node.Session.ID() {
		// The create's own reply told the czxid (a requeue's transaction on
		// ZooKeeper 3.9+): ReadOwn's read has nothing to add.
		w.token = node.Stat.Czxid
	}
	w.readOwn(ctx)
	if req.Session != nil && node.Session != req.Session {
		w.abandon()
		return nil, zkrecipes.ErrLost
	}
	if Replayed(q.c, node) {
		w.abandon()
		return nil, errForeignNode
	}
	h, err := w.run(ctx)
	w.stopWatches()
	if err != nil {
		w.abandon()
		return nil, err
	}
	return h, nil
}

type waiter struct {
	q    *Queue
	req  Request
	node client.ProtectedNode
	name string

	token int64 // the holding's token when known in advance (a downgrade's)

	// listed, when not nil, is the directory's listing that the create
	// carried, and listedDisc the Disconnected channel taken before it:
	// run's first listing.
	listed     []string
	listedDisc <-chan struct{}

	target watched // the node waited for
	early  watched // the node before it

	own <-chan ownRead // Request.ReadOwn's read of the waiter's node, if under way
}

// ownRead is the result of a waiter's read of its own node.
type ownRead struct {
	czxid, owner int64
	err          error
}

// readOwn starts Request.ReadOwn's read of the waiter's node, on a
// goroutine that ends with the reply (or ctx).
func (w *waiter) readOwn(ctx context.Context) {
	if !w.req.ReadOwn || w.token != 0 {
		return
	}
	out := make(chan ownRead, 1)
	w.own = out
	go func() {
		_, st, err := w.q.c.Get(ctx, w.node.Path)
		r := ownRead{err: err}
		if st != nil {
			r.czxid, r.owner = st.Czxid, st.EphemeralOwner
		}
		out <- r
	}()
}

// vouch waits for readOwn's read, if any: the node must be there and its
// session's, and its czxid becomes the token. A read that failed for
// another reason (the connection, say) leaves the token to the holder's
// monitor, as without ReadOwn.
func (w *waiter) vouch(ctx context.Context) error {
	if w.own == nil {
		return nil
	}
	var r ownRead
	select {
	case r = <-w.own:
	case <-ctx.Done():
		return ctx.Err()
	}
	w.own = nil
	switch {
	case errors.Is(r.err, zk.ErrNoNode):
		return zkrecipes.ErrNodeDeleted
	case r.err != nil:
		return nil
	case r.owner != w.node.Session.ID():
		return errForeignNode
	}
	w.token = r.czxid
	return nil
}

func (w *waiter) run(ctx context.Context) (*Held, error) {
	c := w.q.c
	sess := w.node.Session
	disc, kids := w.listedDisc, w.listed
	w.listed, w.listedDisc = nil, nil
	if kids == nil {
		disc = c.Disconnected()
		var err error
		if kids, err = w.list(ctx); err != nil {
			return nil, err
		}
	}
	nodes := Sorted(kids, w.q.markers)
	for {
		if IsClosed(sess.Done()) {
			return nil, fmt.Errorf("zkrecipes: waiting for the lock: %w", sess.Err())
		}
		mine := IndexOf(nodes, w.name)
		if mine < 0 {
			return nil, zkrecipes.ErrNodeDeleted
		}
		d := w.req.Predicate(nodes, mine)
		if d.Holds {
			// A decision is only as good as the connection it was seen
			// on: after a suspension, look again with a fresh view.
			if !IsClosed(disc) {
				if err := w.vouch(ctx); err != nil {
					return nil, err
				}
				return w.hold(disc), nil
			}
		} else {
			if !w.req.Wait {
				return nil, w.lockedError(ctx, nodes)
			}
			early := ""
			if d.Wait > 0 {
				early = nodes[d.Wait-1].Name
			}
			what, err := w.wait(ctx, nodes[d.Wait].Name, early)
			if err != nil {
				return nil, err
			}
			if what == targetDeleted && !d.RelistOnDelete {
				// Fast handoff (see the package doc): the last listing
				// minus the deleted node is a safe superset of what is
				// ahead now. If it grants, hold without a round trip.
				pruned := append(nodes[:d.Wait:d.Wait], nodes[d.Wait+1:]...)
				if w.req.Predicate(pruned, IndexOf(pruned, w.name)).Holds {
					nodes = pruned
					continue
				}
			}
		}
		disc = c.Disconnected()
		kids, err := w.list(ctx)
		if err != nil {
			return nil, err
		}
		nodes = Sorted(kids, w.q.markers)
	}
}

func (w *waiter) list(ctx context.Context) ([]string, error) {
	kids, _, err := w.q.c.Children(ctx, w.q.dir)
	if errors.Is(err, zk.ErrNoNode) {
		// No directory, so no node of ours in it: it went with its
		// session, and the directory (a container) was reaped after it.
		return nil, zkrecipes.ErrNodeDeleted
	}
	return kids, err
}

// lockedError names the holder for a TryLock that would wait: the first
// node of the queue, with its data when it can be read.
func (w *waiter) lockedError(ctx context.Context, nodes []Node) error {
	p := path.Join(w.q.dir, nodes[0].Name)
	data, _, err := w.q.c.Get(ctx, p)
	if err != nil {
		data = nil
	}
	return &zkrecipes.LockedError{Node: p, Data: data}
}

// What ended a wait.
type waitEnd int

const (
	targetDeleted waitEnd = iota // the node waited for is gone
	targetChanged                // its data changed, or its watch ended
	earlyDeleted                 // the node before it is gone: it may hold now
)

// wait blocks until the node waited for (target) is deleted or changes,
// or until the node just before it (early, "" for none) is deleted. A
// waiter does not watch its own node (as in Curator): if it is deleted, the
// next listing finds it missing and the waiter queues again. Watches already
// set on the same nodes are reused across calls.
func (w *waiter) wait(ctx context.Context, target, early string) (waitEnd, error) {
	sess := w.node.Session
	tw, gone, err := w.watch(ctx, &w.target, target)
	if err != nil || gone {
		return targetDeleted, err
	}
	var ech <-chan zk.Event
	var ew *client.Watch
	if early != "" {
		wt, gone, err := w.watch(ctx, &w.early, early)
		if err != nil {
			return 0, err
		}
		if gone {
			return earlyDeleted, nil
		}
		ew, ech = wt, access.WatchC(wt)
	}
	select {
	case ev, ok := <-access.WatchC(tw):
		ev = access.Resolve(tw, ev, ok)
		wakeups.Add(1)
		w.target.stop()
		if ev.Type == zk.EventNodeDeleted {
			return targetDeleted, nil
		}
		return targetChanged, nil
	case ev, ok := <-ech:
		access.Resolve(ew, ev, ok)
		wakeups.Add(1)
		w.early.stop()
		return earlyDeleted, nil
	case <-sess.Done():
		return 0, fmt.Errorf("zkrecipes: waiting for the lock: %w", sess.Err())
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// watched is a data watch a waiter has set on another contender's node.
// It is a client.Watch, which the waiter gives up (Stop) when it no longer
// needs it: a waiter whose ctx ends leaves nothing in go-zookeeper's
// watcher table, however long the node it watched lives.
type watched struct {
	name string
	w    *client.Watch
}

// stop gives the watch up and empties the slot.
func (s *watched) stop() {
	s.w.Stop()
	*s = watched{}
}

// watch returns a data watch on the node name, reusing the one in *slot if
// it is on the same node (else giving that one up); gone reports that the
// node does not exist.
func (w *waiter) watch(ctx context.Context, slot *watched, name string) (*client.Watch, bool, error) {
	if slot.name == name && slot.w != nil {
		return slot.w, false, nil
	}
	slot.stop()
	_, _, wt, err := w.q.c.GetWatch(ctx, path.Join(w.q.dir, name))
	if errors.Is(err, zk.ErrNoNode) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	*slot = watched{name: name, w: wt}
	return wt, false, nil
}

// stopWatches gives up the waiter's watches once it stops waiting.
func (w *waiter) stopWatches() {
	w.target.stop()
	w.early.stop()
}

// abandonWithin bounds how long a failed acquire waits for its own nodes'
// deletes, the reconnect included, before leaving them to the client's
// guaranteed delete.
const abandonWithin = 2 * time.Second

// abandonPause spaces the delete's tries while the connection is failing:
// the client may not have marked the connection down yet, and the next try
// waits for the reconnect only once it has.
const abandonPause = 20 * time.Millisecond

// abandon deletes the contender's node on a failed acquire (see Abandon).
func (w *waiter) abandon() { Abandon(w.q.c, w.node) }

// Abandon deletes nodes an acquire made and no longer needs (a lock's node,
// a semaphore's lease nodes) before it returns, so that a failed Lock,
// TryLock or Acquire leaves no node behind for others to queue after,
// whenever it can within abandonWithin (2 s, for all the nodes together):
// while the client is disconnected but a node's session lives, it waits
// for the reconnect, as Curator's guaranteed delete waits for the
// connection, and deletes the node then. A node whose delete cannot finish
// within the bound, or whose session has ended (the server removes its
// ephemeral nodes itself), is left to the client's guaranteed delete, which
// goes on in the background for as long as the session lives
// (client.DeleteGuaranteed).
func Abandon(c *client.Client, nodes ...client.ProtectedNode) {
	if len(nodes) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), abandonWithin)
	defer cancel()
	for _, node := range nodes {
		abandonNode(ctx, c, node)
	}
}

// abandonNode is Abandon of one node, within ctx.
func abandonNode(ctx context.Context, c *client.Client, node client.ProtectedNode) {
	if sess := node.Session; sess != nil {
		// Waiting for the reconnect is only worth it while the node can
		// outlive the wait: once its session ends, the server deletes it.
		var cancel context.CancelFunc
		ctx, cancel = pubsub.CancelOnClose(ctx, sess.Done())
		defer cancel()
	}
	for ctx.Err() == nil {
		// The client's requests wait for the session's connection (within
		// ctx): while disconnected, this is the wait for the reconnect.
		err := c.DeleteIfExists(ctx, node.Path)
		if err == nil {
			return
		}
		if !retry.IsRetryable(err) {
			break // the server's answer, or the client closed: as below
		}
		// A connection lost under the request: try again on the next one.
		t := time.NewTimer(abandonPause)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	// Past the bound, the session over, or a refusal: the guaranteed delete
	// tries again within what is left of ctx, then in the background.
	if err := c.DeleteGuaranteed(ctx, node.Path, node.Session); err != nil && !errors.Is(err, zkrecipes.ErrDeletePending) {
		access.Logger(c).Warn("could not delete a node; it goes with its session", "path", node.Path, "err", err)
	}
}

// Replayed reports whether node may belong to another session than the one
// it was created for. go-zookeeper may replay a create queued under one
// session into the next; the client learns of a new session (its event)
// before any request is sent in it, so a node whose session is not the
// current, live one right after its create must never be held on.
func Replayed(c *client.Client, node client.ProtectedNode) bool {
	return c.Session() != node.Session || IsClosed(node.Session.Done())
}

// IsClosed reports whether ch is closed, without waiting.
func IsClosed(ch <-chan struct{}) bool { return pubsub.IsClosed(ch) }

// Closed returns a channel that is always closed: the Lost channel of a
// handle that holds nothing.
func Closed() <-chan struct{} { return closedChan }

var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()
