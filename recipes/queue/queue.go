package queue

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Queue is Curator's DistributedQueue: a FIFO queue of items, each a
// PERSISTENT_SEQUENTIAL node "queue-<seq>" under the queue's path holding
// one item or several (PutMulti) in Curator's item format, so Go and Java
// producers and consumers share it. A Queue is safe for concurrent use: any
// number of goroutines may put and consume through one handle. A zero
// Queue returns an error wrapping zkrecipes.ErrInvalidArgument from every
// method.
type Queue struct{ q *core }

// New returns a queue at path (relative to the client's namespace). It
// does no I/O: the queue's node is made, as a container, by the first put.
// A nil client or a bad option is an error wrapping
// zkrecipes.ErrInvalidArgument, a bad path a *client.PathError.
func New(c *client.Client, path string, opts ...Option) (*Queue, error) {
	q, err := newCore(c, kindPlain, path, opts)
	if err != nil {
		return nil, err
	}
	return &Queue{q: q}, nil
}

func (q *Queue) core() (*core, error) {
	if q == nil || q.q == nil {
		return nil, errZero("Queue")
	}
	return q.q, nil
}

// Put adds data at the tail of the queue (Curator's put, with
// putInBackground false: it returns once the item is in the queue). With
// WithMaxItems it first waits while the queue is full; a ctx that ends
// then gives an error wrapping ErrFull. The create is sent once: an error
// wrapping ErrMaybeApplied (a *MaybeAppliedError) means the item may be in
// the queue; any other error means it is not. An item too large for the
// server is a *TooLargeError, before any I/O.
func (q *Queue) Put(ctx context.Context, data []byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.put(ctx, itemPrefix, [][]byte{data}, false)
}

// PutMulti adds items as one node (Curator's putMulti): they are taken
// together, in order, by one consumer. It needs at least one item;
// otherwise it is Put.
func (q *Queue) PutMulti(ctx context.Context, items ...[]byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return invalidArg("PutMulti of no items")
	}
	return c.put(ctx, itemPrefix, items, false)
}

// Consume takes items from the queue and calls h for each, one at a time,
// until ctx ends (its error) or Close (an error wrapping zkrecipes.ErrClosed);
// see Handler for what happens to an item whose handler fails. Call it from
// several goroutines to process several items at once: each call is one
// consumer. A nil h is an error wrapping zkrecipes.ErrInvalidArgument.
// Failures that may pass (a lost connection, an expired session) are ridden
// out; Consume returns an error that will not pass (an ACL refusal) at
// once. It returns only once the item in hand is removed, requeued or
// released (at most about a session timeout while disconnected).
func (q *Queue) Consume(ctx context.Context, h Handler) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.consume(ctx, h)
}

// Len is the number of children of the queue's node (Curator's
// getLastMessageCount, read now): its items, a node from PutMulti counted
// once, and any foreign node. A missing queue node has none.
func (q *Queue) Len(ctx context.Context) (int, error) {
	c, err := q.core()
	if err != nil {
		return 0, err
	}
	return c.length(ctx)
}

// Path returns the queue's path, relative to the client's namespace.
func (q *Queue) Path() string {
	if q == nil || q.q == nil {
		return ""
	}
	return q.q.path
}

// Events returns a channel that receives what happens to items outside the
// normal course (see EventType), from now on, in order, none dropped, and a
// function that cancels the subscription and closes the channel. Close
// closes every channel.
func (q *Queue) Events() (<-chan Event, func()) {
	if q == nil || q.q == nil {
		return closedEvents(), func() {}
	}
	return q.q.events()
}

// Close stops the handle's Consume calls (their handlers' ctx ends) and
// waits, until ctx ends, for them to return, having committed or released
// the items in hand and left the idle line and the registry. Every later
// call returns an error wrapping zkrecipes.ErrClosed. A second Close returns
// the first one's result. Close the queue before its client.
func (q *Queue) Close(ctx context.Context) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.close(ctx)
}

// length is the number of children of the queue's node.
func (q *core) length(ctx context.Context) (int, error) {
	if err := q.usable(ctx); err != nil {
		return 0, err
	}
	ok, st, err := q.cl.Exists(ctx, q.path)
	switch {
	case err != nil:
		return 0, q.wrap("len", err)
	case !ok:
		return 0, nil
	}
	return int(st.NumChildren), nil
}

// remove removes the item nodes whose names match (Curator's tryRemove of
// REMOVE): lock-safe, each under its lock, so an item a consumer holds is
// not removed; otherwise with a plain delete. It returns how many it
// removed.
func (q *core) remove(ctx context.Context, match func(string) bool) (int, error) {
	if err := q.usable(ctx); err != nil {
		return 0, err
	}
	names, _, err := q.cl.Children(ctx, q.path)
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	if err != nil {
		return 0, q.wrap("remove", err)
	}
	items, _ := q.k.entries(names)
	n := 0
	for _, e := range items {
		if !match(e.name) {
			continue
		}
		ok, err := q.removeOne(ctx, e)
		if err != nil {
			return n, q.wrap("remove", err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// removeOne removes one item node; false when it was gone or held.
func (q *core) removeOne(ctx context.Context, e entry) (bool, error) {
	if !q.lockSafe() {
		t, err := q.takeRemoved(ctx, e)
		return t != nil, err
	}
	t, err := q.takeLocked(ctx, e)
	switch {
	case errors.Is(err, errHeld):
		return false, nil
	case err != nil || t == nil:
		return false, err
	}
	_, err = q.commit(t, q.removeOps(t, userOps{}).ops, nil)
	var refused *failedOpError
	if errors.As(err, &refused) {
		return false, q.release(t.sess, t.lock) // the item went meanwhile
	}
	return err == nil, err
}
