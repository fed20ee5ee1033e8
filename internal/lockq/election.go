package lockq

import (
	"context"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The pieces below let a recipe keep one node across several holdings, as a
// leader latch does: a suspension that ends in a reconnect of the same
// session ends a holding (its Lost closes) but not the node, which must not
// be deleted and created again (Curator's CURATOR-644/645 livelock). Acquire
// is Enter followed by Resume, plus the clean-up of the node on failure;
// here the caller decides what a failure means for its node.

// Enter creates a contender's node for req (protected,
// EPHEMERAL_SEQUENTIAL, named req.Marker) and returns it without waiting.
// A node that lands in another session than the current, live one (see
// Replayed) is deleted and the error satisfies Requeues.
func (q *Queue) Enter(ctx context.Context, req Request) (client.ProtectedNode, error) {
	node, err := q.c.CreateProtected(ctx, path.Join(q.dir, req.Marker), req.Data, zk.FlagEphemeralSequential)
	if err != nil {
		return client.ProtectedNode{}, err
	}
	if Replayed(q.c, node) {
		Abandon(q.c, node)
		return client.ProtectedNode{}, errForeignNode
	}
	return node, nil
}

// Resume waits, on node (made by Enter in this queue), until req.Predicate
// says it holds, exactly as Acquire waits: a grant is made only on a
// listing taken while the connection stayed up, and the Held's monitor then
// reads the node and checks that it belongs to node.Session. It may be
// called again on the same node after an earlier holding on it was lost to
// a suspension: the node keeps its place, and the new holding reads the
// same token. On error the node is left as it is; Requeues(err) tells
// that it is gone (deleted, or its session ended) and a new one is needed.
func (q *Queue) Resume(ctx context.Context, req Request, node client.ProtectedNode) (*Held, error) {
	w := &waiter{q: q, req: req, node: node, name: path.Base(node.Path)}
	w.readOwn(ctx)
	defer w.stopWatches()
	return w.run(ctx)
}

// Requeues reports whether an error of Enter, Resume or Acquire means that
// the contender lost its node (its session ended, the node was deleted, or
// the node landed in another session) rather than its reason to wait.
func Requeues(err error) bool { return requeues(err) }

// Drop stops a holding without deleting its node: its Lost closes (with
// zkrecipes.ErrNotHeld if it had not been lost yet) and its monitor's reads end. The
// node stays, for a later Resume or a deletion by the caller. Drop is
// idempotent, and it may follow or precede Release.
func (h *Held) Drop() {
	h.stop()
	<-h.done
}
