package queue

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// Simple is Curator's SimpleDistributedQueue (ZooKeeper's own queue
// recipe): items are the raw data of PERSISTENT_SEQUENTIAL nodes
// "qn-<seq>", taken in put order, each removed as it is taken. It has no
// lock safety: a taker that dies after the removal loses the item. Curator's
// offer, take, poll(timeout), poll/remove and peek/element are Offer, Take
// (a ctx with a deadline for poll with a timeout), Poll and Peek (ErrEmpty
// for an empty queue). A zero Simple returns an error wrapping
// zkrecipes.ErrInvalidArgument from every method.
type Simple struct{ q *core }

// NewSimple returns a simple queue at path (relative to the client's
// namespace); no I/O. It takes WithConsumerPath (its waiting takers' line)
// and WithMaxBuffer; a lock path or max items is an error.
func NewSimple(c *client.Client, path string, opts ...Option) (*Simple, error) {
	q, err := newCore(c, kindSimple, path, opts)
	if err != nil {
		return nil, err
	}
	return &Simple{q: q}, nil
}

func (s *Simple) core() (*core, error) {
	if s == nil || s.q == nil {
		return nil, errZero("Simple")
	}
	return s.q, nil
}

// Offer adds data at the tail (Curator's offer); see Queue.Put for its
// errors.
func (s *Simple) Offer(ctx context.Context, data []byte) error {
	c, err := s.core()
	if err != nil {
		return err
	}
	return c.put(ctx, simplePrefix, [][]byte{data}, true)
}

// Take removes the head of the queue and returns its data, waiting until
// there is one or ctx ends (Curator's take, and poll with a timeout).
// Waiting takers queue on the idle line, so an offer wakes one of them.
func (s *Simple) Take(ctx context.Context) ([]byte, error) {
	c, err := s.core()
	if err != nil {
		return nil, err
	}
	if err := c.usable(ctx); err != nil {
		return nil, err
	}
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer c.running.Done()
	ctx, cancel := c.bind(ctx)
	defer cancel()
	for {
		data, err := c.poll(ctx)
		if err == nil {
			return data, nil
		}
		if !errors.Is(err, ErrEmpty) {
			return nil, err
		}
		t, err := c.takeWaiting(ctx)
		if t != nil {
			return t.data, nil
		}
		if e := c.ended(ctx); e != nil {
			return nil, e
		}
		if err != nil && fatal(err) {
			return nil, c.wrap("take", err)
		}
		if err != nil {
			lockq.Sleep(ctx, 50*time.Millisecond) // a failure that may pass
		}
	}
}

// takeWaiting waits on the idle line and takes the first item that comes.
func (q *core) takeWaiting(ctx context.Context) (*taken, error) {
	if err := q.idle.Lock(ctx); err != nil {
		return nil, err
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = q.idle.Unlock(uctx)
	}()
	return q.watchTake(ctx)
}

// Poll removes the head of the queue and returns its data, or ErrEmpty at
// once (Curator's poll, and remove with NoSuchElementException).
func (s *Simple) Poll(ctx context.Context) ([]byte, error) {
	c, err := s.core()
	if err != nil {
		return nil, err
	}
	if err := c.usable(ctx); err != nil {
		return nil, err
	}
	return c.poll(ctx)
}

// poll takes the first item it can, in order; ErrEmpty when none. It
// works through the handle's last listing before listing again: a node
// made after a listing sorts after every node in it (its sequence number
// is higher; the counter starts again only with a new queue node, made
// once the old one was emptied and reaped), so what is left of the listing
// is still the head of the queue, less what others took (Curator lists the
// queue again for every item).
func (q *core) poll(ctx context.Context) ([]byte, error) {
	for listed := false; ; {
		e, ok := q.nextHead()
		if !ok {
			if listed {
				return nil, ErrEmpty
			}
			if err := q.listHead(ctx); err != nil {
				return nil, q.wrap("poll", err)
			}
			listed = true
			continue
		}
		t, err := q.takeRemoved(ctx, e)
		if err != nil {
			return nil, q.wrap("poll", err)
		}
		if t != nil {
			return t.data, nil
		}
	}
}

// listHead lists the queue into the handle's head.
func (q *core) listHead(ctx context.Context) error {
	names, err := q.names(ctx)
	if err != nil {
		return err
	}
	items, foreign := q.k.entries(names)
	q.noteForeign(foreign)
	q.mu.Lock()
	q.head = items
	q.mu.Unlock()
	return nil
}

// nextHead takes the first entry of the handle's head.
func (q *core) nextHead() (entry, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.head) == 0 {
		return entry{}, false
	}
	e := q.head[0]
	q.head = q.head[1:]
	return e, true
}

// Peek returns the head's data without removing it, or ErrEmpty (Curator's
// peek and element).
func (s *Simple) Peek(ctx context.Context) ([]byte, error) {
	c, err := s.core()
	if err != nil {
		return nil, err
	}
	if err := c.usable(ctx); err != nil {
		return nil, err
	}
	for listed := false; ; {
		c.mu.Lock()
		head := slices.Clone(c.head)
		c.mu.Unlock()
		for _, e := range head {
			data, _, err := c.cl.Get(ctx, c.path+"/"+e.name)
			switch {
			case err == nil:
				return data, nil
			case !errors.Is(err, zk.ErrNoNode):
				return nil, c.wrap("peek", err)
			}
			c.dropHead(e.name)
		}
		if listed {
			return nil, ErrEmpty
		}
		if err := c.listHead(ctx); err != nil {
			return nil, c.wrap("peek", err)
		}
		listed = true
	}
}

// dropHead removes a node found gone from the handle's head.
func (q *core) dropHead(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.head) > 0 && q.head[0].name == name {
		q.head = q.head[1:]
	}
}

// Len is Queue.Len.
func (s *Simple) Len(ctx context.Context) (int, error) {
	c, err := s.core()
	if err != nil {
		return 0, err
	}
	return c.length(ctx)
}

// Path returns the queue's path, relative to the client's namespace.
func (s *Simple) Path() string {
	if s == nil || s.q == nil {
		return ""
	}
	return s.q.path
}

// Events is Queue.Events (MaybeLost and Foreign only).
func (s *Simple) Events() (<-chan Event, func()) {
	if s == nil || s.q == nil {
		return closedEvents(), func() {}
	}
	return s.q.events()
}

// Close stops the handle's waiting Takes (they return an error wrapping
// zkrecipes.ErrClosed) and waits for them to leave the idle line, until ctx
// ends. A second Close returns the first one's result.
func (s *Simple) Close(ctx context.Context) error {
	c, err := s.core()
	if err != nil {
		return err
	}
	return c.close(ctx)
}

// names lists the queue's children; a missing queue node has none.
func (q *core) names(ctx context.Context) ([]string, error) {
	names, _, err := q.cl.Children(ctx, q.path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return names, err
}
