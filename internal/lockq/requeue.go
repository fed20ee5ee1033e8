package lockq

import (
	"context"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// Requeue releases h and queues again with req, as Release followed by
// Acquire would, but with the release's delete and the new node's create in
// one transaction (client.ReplaceProtected): one write for the server
// instead of two, and the new node is in the queue the moment the old one
// leaves it. A leader loop that campaigns again after each term uses it.
//
// h's Lost closes first (zkrecipes.ErrNotHeld), as with Release. h's node is deleted
// whatever happens: by the transaction, or by a guaranteed delete. Without
// a connection, or when h's session is not the live one, h is released on
// its own (in the background) and the new place taken as Acquire takes it.
// The result is Acquire's.
func (q *Queue) Requeue(ctx context.Context, h *Held, req Request) (*Held, error) {
	h.stop()
	if req.Suffix != "" || IsClosed(q.c.Disconnected()) || q.c.Session() != h.node.Session || IsClosed(h.node.Session.Done()) {
		// No connection: straight to the background, where the client
		// deletes the node at once on the reconnect.
		ctx0, cancel := context.WithCancel(context.Background())
		cancel()
		_ = h.Release(ctx0)
		return q.Acquire(ctx, req)
	}
	old := h.node
	first := true
	attempt := func() (*Held, error) {
		if !first {
			return q.attempt(ctx, req)
		}
		first = false
		node, err := q.c.ReplaceProtected(ctx, old, path.Join(q.dir, req.Marker), req.Data, zk.FlagEphemeralSequential)
		<-h.done
		if err != nil {
			return nil, err
		}
		return q.waitOn(ctx, req, node)
	}
	lostPlace := func(err error) bool { return req.Session == nil && req.Wait && requeues(err) }
	return Again(ctx, q.c, "lock waiter", q.dir, attempt, lostPlace)
}

// stop ends the holding (its Lost closes with zkrecipes.ErrNotHeld) without deleting
// its node; the monitor's reads end.
func (h *Held) stop() {
	h.relOnce.Do(func() {
		close(h.released) // also cancels the monitor's reads (releasedCtx)
		if h.mstate.CompareAndSwap(monitorIdle, monitorSkipped) {
			// No monitor ever started: end here what it would have.
			h.timer.Stop()
			access.UnwatchLoss(h.c, &h.loss)
			h.end("")
		}
	})
}
