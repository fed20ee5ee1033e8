package queue

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// IDQueue is Curator's DistributedIdQueue: a Queue whose items carry an id
// in their node name ("queue-|<id>|<seq>"), taken in put order, and
// removable by id before a consumer takes them. Ids are not unique: several
// items may share one. A zero IDQueue returns an error wrapping
// zkrecipes.ErrInvalidArgument from every method.
type IDQueue struct{ q *core }

// NewID returns an id queue at path; see New.
func NewID(c *client.Client, path string, opts ...Option) (*IDQueue, error) {
	q, err := newCore(c, kindID, path, opts)
	if err != nil {
		return nil, err
	}
	return &IDQueue{q: q}, nil
}

func (q *IDQueue) core() (*core, error) {
	if q == nil || q.q == nil {
		return nil, errZero("IDQueue")
	}
	return q.q, nil
}

// checkID refuses an empty id, and one that makes no valid node name.
func (q *core) checkID(id string) error {
	if id == "" {
		return invalidArg("empty id")
	}
	return client.ValidatePath(q.path + "/" + idPrefix(id) + "0000000000")
}

// Put adds data with id at the tail of the queue; see Queue.Put. The id
// must not be empty; '/' and '|' in it are stored as '_' (as Curator
// stores them).
func (q *IDQueue) Put(ctx context.Context, id string, data []byte) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	if err := c.checkID(id); err != nil {
		return err
	}
	return c.put(ctx, idPrefix(id), [][]byte{data}, false)
}

// Remove removes every item with id that no consumer has taken yet and
// returns how many it removed (Curator's remove). On a lock-safe queue an
// item a consumer holds is not removed.
func (q *IDQueue) Remove(ctx context.Context, id string) (int, error) {
	c, err := q.core()
	if err != nil {
		return 0, err
	}
	if err := c.checkID(id); err != nil {
		return 0, err
	}
	want := fixID(id)
	return c.remove(ctx, func(name string) bool {
		got, _, ok := parseID(name)
		return ok && got == want
	})
}

// Contains reports whether an item with id is in the queue (Curator's
// debugIsQueued).
func (q *IDQueue) Contains(ctx context.Context, id string) (bool, error) {
	c, err := q.core()
	if err != nil {
		return false, err
	}
	if err := c.checkID(id); err != nil {
		return false, err
	}
	if err := c.usable(ctx); err != nil {
		return false, err
	}
	names, err := c.names(ctx)
	if err != nil {
		return false, c.wrap("contains", err)
	}
	want := fixID(id)
	for _, n := range names {
		if got, _, ok := parseID(n); ok && got == want {
			return true, nil
		}
	}
	return false, nil
}

// Consume is Queue.Consume; Item.ID is each item's id.
func (q *IDQueue) Consume(ctx context.Context, h Handler) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.consume(ctx, h)
}

// Len is Queue.Len.
func (q *IDQueue) Len(ctx context.Context) (int, error) {
	c, err := q.core()
	if err != nil {
		return 0, err
	}
	return c.length(ctx)
}

// Path returns the queue's path, relative to the client's namespace.
func (q *IDQueue) Path() string {
	if q == nil || q.q == nil {
		return ""
	}
	return q.q.path
}

// Events is Queue.Events.
func (q *IDQueue) Events() (<-chan Event, func()) {
	if q == nil || q.q == nil {
		return closedEvents(), func() {}
	}
	return q.q.events()
}

// Close is Queue.Close.
func (q *IDQueue) Close(ctx context.Context) error {
	c, err := q.core()
	if err != nil {
		return err
	}
	return c.close(ctx)
}
