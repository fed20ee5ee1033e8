package queue

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Info is one look at a queue, as the kinds' Info methods take it and zkr
// queue prints it.
type Info struct {
	// Items is the number of item nodes (a node from PutMulti counts once).
	Items int
	// Foreign are the queue's children that are no item of its kind.
	Foreign []string
	// Oldest is the item node made first (the lowest sequence number),
	// Next the one consumers take next in the kind's order (a delay
	// queue's earliest due, due or not); nil when the queue is empty.
	Oldest, Next *NodeInfo
	// Held are the lock nodes under the lock path (lock-safe queues): the
	// items consumers hold now, Java's included.
	Held []NodeInfo
	// Consumers are the running Go consumers (one node per Consume call
	// under the consumer path's members). Java consumers leave no trace
	// but their locks.
	Consumers []NodeInfo
	// Idle is how many Go consumers (or Simple's Takes) wait on the idle
	// line.
	Idle int
}

// NodeInfo is one node of an Info.
type NodeInfo struct {
	Name    string    // the node's name
	Created time.Time // its ctime, by the server's clock
	Session int64     // its ephemeral owner (0 for an item)
	Data    []byte    // a lock's or a consumer's data (who made it); nil for an item
	// ID is an id queue's item's id.
	ID string
	// Priority is a priority queue's item's priority.
	Priority int32
	// Due is a delay queue's item's due time (zero: at once).
	Due time.Time
}

// info takes one look at the queue.
func (q *core) info(ctx context.Context) (*Info, error) {
	if err := q.usable(ctx); err != nil {
		return nil, err
	}
	names, err := q.names(ctx)
	if err != nil {
		return nil, q.wrap("info", err)
	}
	items, foreign := q.k.entries(names)
	in := &Info{Items: len(items), Foreign: foreign}
	if len(items) > 0 {
		oldest := slices.MinFunc(items, func(a, b entry) int { return strings.Compare(seqOf(a.name), seqOf(b.name)) })
		for _, p := range []struct {
			e   entry
			out **NodeInfo
		}{{oldest, &in.Oldest}, {items[0], &in.Next}} {
			n, err := q.nodeInfo(ctx, q.path, p.e.name, false)
			if err != nil {
				return nil, q.wrap("info", err)
			}
			if n != nil {
				q.describe(n, p.e)
			}
			*p.out = n
		}
	}
	if q.lockSafe() {
		if in.Held, err = q.nodesOf(ctx, q.lockPath); err != nil {
			return nil, q.wrap("info", err)
		}
	}
	if in.Consumers, err = q.nodesOf(ctx, q.consumerPath+"/members"); err != nil {
		return nil, q.wrap("info", err)
	}
	idle, err := q.names2(ctx, q.consumerPath+"/idle")
	if err != nil {
		return nil, q.wrap("info", err)
	}
	in.Idle = len(idle)
	return in, nil
}

// describe fills in what e's name says.
func (q *core) describe(n *NodeInfo, e entry) {
	switch q.k {
	case kindID:
		if id, _, ok := parseID(e.name); ok {
			n.ID = id
		}
	case kindPriority:
		n.Priority, _ = parsePriority(e.name)
	case kindDelay:
		n.Due = e.dueAt()
	}
}

// nodesOf reads every child of dir, with its data, in name order; a
// missing dir has none.
func (q *core) nodesOf(ctx context.Context, dir string) ([]NodeInfo, error) {
	kids, err := q.names2(ctx, dir)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(kids, func(a, b string) int { return strings.Compare(seqOf(a)+a, seqOf(b)+b) })
	var out []NodeInfo
	for _, k := range kids {
		n, err := q.nodeInfo(ctx, dir, k, true)
		if err != nil {
			return nil, err
		}
		if n != nil {
			out = append(out, *n)
		}
	}
	return out, nil
}

// nodeInfo reads dir/name (its data when withData); nil when it is gone.
func (q *core) nodeInfo(ctx context.Context, dir, name string, withData bool) (*NodeInfo, error) {
	var data []byte
	var st *zk.Stat
	var err error
	if withData {
		data, st, err = q.cl.Get(ctx, dir+"/"+name)
	} else {
		var ok bool
		ok, st, err = q.cl.Exists(ctx, dir+"/"+name)
		if err == nil && !ok {
			err = zk.ErrNoNode
		}
	}
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &NodeInfo{Name: name, Created: time.UnixMilli(st.Ctime), Session: st.EphemeralOwner, Data: data}, nil
}

// names2 lists dir's children; a missing dir has none.
func (q *core) names2(ctx context.Context, dir string) ([]string, error) {
	kids, _, err := q.cl.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}

// Info takes one look at the queue: its items, the oldest and the next,
// the items held, and the consumers (see Info).
func (q *Queue) Info(ctx context.Context) (*Info, error) {
	c, err := q.core()
	if err != nil {
		return nil, err
	}
	return c.info(ctx)
}

// Info is Queue.Info.
func (q *IDQueue) Info(ctx context.Context) (*Info, error) {
	c, err := q.core()
	if err != nil {
		return nil, err
	}
	return c.info(ctx)
}

// Info is Queue.Info.
func (q *PriorityQueue) Info(ctx context.Context) (*Info, error) {
	c, err := q.core()
	if err != nil {
		return nil, err
	}
	return c.info(ctx)
}

// Info is Queue.Info.
func (q *DelayQueue) Info(ctx context.Context) (*Info, error) {
	c, err := q.core()
	if err != nil {
		return nil, err
	}
	return c.info(ctx)
}

// Info is Queue.Info (Simple has no locks; Idle counts its waiting
// Takes).
func (s *Simple) Info(ctx context.Context) (*Info, error) {
	c, err := s.core()
	if err != nil {
		return nil, err
	}
	return c.info(ctx)
}
