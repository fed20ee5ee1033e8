package queue

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// PriorityQueue is Curator's DistributedPriorityQueue: items are taken
// lowest priority number first, in put order within a priority. The
// priority is in the node name ("queue-" + "1" and 8 hex digits for a
// priority >= 0, "0" and those of its two's complement below 0). A
// consumer lists the queue again after each item by default (Curator's
// minItemsBeforeRefresh 0; WithMinItemsBeforeRefresh sets it), so an item
// of a better priority put meanwhile comes next. A zero PriorityQueue
// returns an error wrapping zkrecipes.ErrInvalidArgument from every method.
type PriorityQueue struct{ q *core }

// NewPriority returns a priority queue at path; see New.
func NewPriority(c *client.Client, path string, opts ...Option) (*PriorityQueue, error) {
	q, err := newCore(c, kindPriority, path, opts)
	if err != nil {
		return nil, err
	}
	return &PriorityQueue{q: q}, nil
}

func (q *PriorityQueue) core() (*core, error) {
	if q == nil || q.q == nil {
		return nil, errZero("PriorityQueue")
	}
	return q.q, nil
}

// Put adds data with priority (lower numbers are taken first); see
// Queue.Put.
func (q *PriorityQueue) Put(ctx context.Context, priority int32, data []byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.put(ctx, priorityPrefix(priority), [][]byte{data}, false)
}

// PutMulti adds items as one node of priority; see Queue.PutMulti.
func (q *PriorityQueue) PutMulti(ctx context.Context, priority int32, items ...[]byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return invalidArg("PutMulti of no items")
	}
	return c.put(ctx, priorityPrefix(priority), items, false)
}

// Consume is Queue.Consume; Item.Priority is each item's priority.
func (q *PriorityQueue) Consume(ctx context.Context, h Handler) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.consume(ctx, h)
}

// Len is Queue.Len.
func (q *PriorityQueue) Len(ctx context.Context) (int, error) {
	c, err := q.core()
	if err != nil {
		return 0, err
	}
	return c.length(ctx)
}

// Path returns the queue's path, relative to the client's namespace.
func (q *PriorityQueue) Path() string {
	if q == nil || q.q == nil {
		return ""
	}
	return q.q.path
}

// Events is Queue.Events.
func (q *PriorityQueue) Events() (<-chan Event, func()) {
	if q == nil || q.q == nil {
		return closedEvents(), func() {}
	}
	return q.q.events()
}

// Close is Queue.Close.
func (q *PriorityQueue) Close(ctx context.Context) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.close(ctx)
}
