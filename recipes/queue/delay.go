package queue

import (
	"context"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// DelayQueue is Curator's DistributedDelayQueue: an item is taken only once
// it is due, earliest due first. The due time is in the node name
// ("queue-|<Unix ms, hex>|<seq>") and is compared with the consumer's
// clock: producers' and consumers' clocks should agree. An idle consumer
// waits for the first item's due time or for a put, whichever comes
// first. A zero DelayQueue returns an error wrapping
// zkrecipes.ErrInvalidArgument from every method.
type DelayQueue struct{ q *core }

// NewDelay returns a delay queue at path; see New.
func NewDelay(c *client.Client, path string, opts ...Option) (*DelayQueue, error) {
	q, err := newCore(c, kindDelay, path, opts)
	if err != nil {
		return nil, err
	}
	return &DelayQueue{q: q}, nil
}

func (q *DelayQueue) core() (*core, error) {
	if q == nil || q.q == nil {
		return nil, errZero("DelayQueue")
	}
	return q.q, nil
}

// dueIn is the due time, in Unix ms, of an item put now with delay d.
func dueIn(d time.Duration) (int64, error) {
	if d < 0 {
		return 0, invalidArg("negative delay %v", d)
	}
	return time.Now().Add(d).UnixMilli(), nil
}

// dueAt is the due time, in Unix ms, of an item due at t.
func dueAt(t time.Time) (int64, error) {
	ms := t.UnixMilli()
	if ms <= 0 {
		return 0, invalidArg("due time %v is not after 1970 (Curator's delayUntilEpoch must be positive)", t)
	}
	return ms, nil
}

// Put adds data, due once delay has passed (0: at once); see Queue.Put. A
// negative delay is an error wrapping zkrecipes.ErrInvalidArgument.
func (q *DelayQueue) Put(ctx context.Context, delay time.Duration, data []byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	ms, err := dueIn(delay)
	if err != nil {
		return err
	}
	return c.put(ctx, delayPrefix(ms), [][]byte{data}, false)
}

// PutAt adds data, due at the instant at (Curator's put with
// delayUntilEpoch; at must be after the Unix epoch).
func (q *DelayQueue) PutAt(ctx context.Context, at time.Time, data []byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	ms, err := dueAt(at)
	if err != nil {
		return err
	}
	return c.put(ctx, delayPrefix(ms), [][]byte{data}, false)
}

// PutMulti adds items as one node, due once delay has passed; see
// Queue.PutMulti.
func (q *DelayQueue) PutMulti(ctx context.Context, delay time.Duration, items ...[]byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return invalidArg("PutMulti of no items")
	}
	ms, err := dueIn(delay)
	if err != nil {
		return err
	}
	return c.put(ctx, delayPrefix(ms), items, false)
}

// Consume is Queue.Consume; Item.Due is each item's due time.
func (q *DelayQueue) Consume(ctx context.Context, h Handler) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.consume(ctx, h)
}

// Len is Queue.Len: items due or not.
func (q *DelayQueue) Len(ctx context.Context) (int, error) {
	c, err := q.core()
	if err != nil {
		return 0, err
	}
	return c.length(ctx)
}

// Path returns the queue's path, relative to the client's namespace.
func (q *DelayQueue) Path() string {
	if q == nil || q.q == nil {
		return ""
	}
	return q.q.path
}

// Events is Queue.Events.
func (q *DelayQueue) Events() (<-chan Event, func()) {
	if q == nil || q.q == nil {
		return closedEvents(), func() {}
	}
	return q.q.events()
}

// Close is Queue.Close.
func (q *DelayQueue) Close(ctx context.Context) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.close(ctx)
}
