package queue

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
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
	// Wait is false for a try-lock: return ErrWouldBlock rather than wait.
	Wait bool
	// LostOnSessionLossOnly makes Held.Lost close only when the session is
	// lost, not already when the connection is suspended.
	LostOnSessionLossOnly bool
	// OnRevoke, if set, is called (on its own goroutine) when someone writes
	// RevokeMarker into the held node.
	OnRevoke func()
	// Session, when set, is the session the node must be created in; an
	// acquire whose node lands in any other session fails with ErrLost. The
	// read/write lock's downgrade sets it to its write holding's session:
	// a downgrade is only safe while that holding lives.
	Session *client.Session
}

// Acquire creates the contender's node and waits until the predicate says it
// holds, ctx ends, or the node or its session is lost. On every error return,
// the node it created has been deleted.
func (q *Queue) Acquire(ctx context.Context, req Request) (*Held, error) {
	flags := int32(zk.FlagEphemeralSequential)
	name := req.Marker
	if req.Suffix != "" {
		flags = zk.FlagEphemeral
		name += req.Suffix
	}
	node, err := q.c.CreateProtected(ctx, path.Join(q.dir, name), req.Data, flags)
	if err != nil {
		return nil, err
	}
	w := &waiter{q: q, req: req, node: node, name: path.Base(node.Path)}
	if req.Session != nil && node.Session != req.Session {
		w.removeNode()
		return nil, ErrLost
	}
	h, err := w.run(ctx)
	if err != nil {
		w.removeNode()
		return nil, err
	}
	return h, nil
}

type waiter struct {
	q      *Queue
	req    Request
	node   client.ProtectedNode
	name   string
	target watched // the node waited for
	early  watched // the node before it
}

func (w *waiter) run(ctx context.Context) (*Held, error) {
	c := w.q.c
	disc := c.Disconnected()
	kids, err := w.list(ctx)
	if err != nil {
		return nil, err
	}
	nodes := Sorted(kids, w.q.markers)
	for {
		mine := IndexOf(nodes, w.name)
		if mine < 0 {
			return nil, ErrNodeDeleted
		}
		d := w.req.Predicate(nodes, mine)
		if d.Holds {
			// A decision is only as good as the connection it was seen
			// on: after a suspension, look again with a fresh view.
			if !isClosed(disc) {
				return w.hold(disc), nil
			}
		} else {
			if !w.req.Wait {
				return nil, ErrWouldBlock
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
				// Fast handoff: nodes ahead of us only ever disappear, so
				// the last listing minus the deleted node is a safe
				// superset of what is ahead now. If it grants, hold
				// without a round trip; if not, a listing settles it.
				pruned := append(nodes[:d.Wait:d.Wait], nodes[d.Wait+1:]...)
				if w.req.Predicate(pruned, IndexOf(pruned, w.name)).Holds {
					nodes = pruned
					continue
				}
			}
		}
		disc = c.Disconnected()
		if kids, err = w.list(ctx); err != nil {
			return nil, err
		}
		nodes = Sorted(kids, w.q.markers)
	}
}

func (w *waiter) list(ctx context.Context) ([]string, error) {
	listings.Add(1)
	kids, _, err := w.q.c.Children(ctx, w.q.dir)
	return kids, err
}

// What ended a wait.
type waitEnd int

const (
	targetDeleted waitEnd = iota // the node waited for is gone
	targetChanged                // its data changed, or its watch ended
	earlyDeleted                 // the node before it is gone: it may hold now
)

// wait blocks until the node waited for (target) is deleted or changes, or
// until the node just before it (early, "" for none) is deleted. The second
// watch is what makes handoffs free of round trips: early's deletion usually
// means target has just become the holder, so the waiter lists again while
// target works, and target's own deletion then finds it with a listing in
// which target was first. Each node is watched by at most two waiters, so a
// release wakes at most two: no herd. Watches already set on the same nodes
// are reused across calls.
func (w *waiter) wait(ctx context.Context, target, early string) (waitEnd, error) {
	sess := w.node.Session
	tch, gone, err := w.watch(ctx, &w.target, target)
	if err != nil || gone {
		return targetDeleted, err
	}
	var ech <-chan zk.Event
	if early != "" {
		ch, gone, err := w.watch(ctx, &w.early, early)
		if err != nil {
			return 0, err
		}
		if gone {
			return earlyDeleted, nil
		}
		ech = ch
	}
	select {
	case ev := <-tch:
		wakeups.Add(1)
		w.target = watched{}
		if ev.Type == zk.EventNodeDeleted {
			return targetDeleted, nil
		}
		return targetChanged, nil
	case <-ech:
		wakeups.Add(1)
		w.early = watched{}
		return earlyDeleted, nil
	case <-sess.Done():
		return 0, fmt.Errorf("zkrecipes: waiting for the lock: %w", sess.Err())
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// watched is a data watch a waiter has set on another contender's node.
type watched struct {
	name string
	ch   <-chan zk.Event
}

// watch returns a data watch on the node name, reusing the one in *slot if
// it is on the same node; gone reports that the node does not exist.
func (w *waiter) watch(ctx context.Context, slot *watched, name string) (<-chan zk.Event, bool, error) {
	if slot.name == name && slot.ch != nil {
		return slot.ch, false, nil
	}
	_, _, ch, err := w.q.c.GetW(ctx, path.Join(w.q.dir, name))
	if err == zk.ErrNoNode {
		*slot = watched{}
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	*slot = watched{name: name, ch: ch}
	return ch, false, nil
}

// removeNode deletes the contender's node on a failed acquire, with its own
// deadline since the caller's context may be what ended the acquire.
func (w *waiter) removeNode() {
	deleteNode(w.q.c, w.node)
}

// deleteNode deletes node, bounded in time. Even when the node's session has
// ended it tries: a session given up locally may still live on the server
// for a while, and the node must not outlive its purpose there.
func deleteNode(c *client.Client, node client.ProtectedNode) {
	ctx, cancel := context.WithTimeout(context.Background(), max(c.SessionTimeout(), 2*time.Second))
	defer cancel()
	if err := c.DeleteIfExists(ctx, node.Path); err != nil {
		c.Logger().Warn("could not delete a lock node; it goes with its session",
			"path", node.Path, "err", err)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
