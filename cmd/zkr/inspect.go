package main

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }

// readChildren reads every child of dir with its data and stat; children that
// vanish meanwhile are left out.
func readChildren(ctx context.Context, c *client.Client, dir string, names []string) ([]rawNode, error) {
	out := make([]rawNode, 0, len(names))
	for _, n := range names {
		data, st, err := c.Get(ctx, join(dir, n))
		if isNoNode(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rawNode{Name: n, Data: data, Czxid: st.Czxid, Ctime: st.Ctime, EphemeralOwner: st.EphemeralOwner})
	}
	return out, nil
}

// inspect reads the recipe at p into a View. A missing node is an error
// matching zk.ErrNoNode.
func inspect(ctx context.Context, c *client.Client, p string) (*View, error) {
	data, st, err := c.Get(ctx, p)
	if err != nil {
		return nil, err
	}
	kids, _, err := c.Children(ctx, p)
	if err != nil {
		return nil, err
	}
	v := &View{Path: p, Kind: classify(kids, len(data)), Nodes: []NodeView{}}
	now := time.Now()
	switch v.Kind {
	case kindCount:
		if n, ok := parseCount(data); ok {
			v.Count = &CountView{Value: n, Version: st.Version}
		} else {
			v.Kind = kindNone
		}
	case kindSemaphore:
		v.Limit = parseLimit(data)
		leases := join(p, "leases")
		names, _, err := c.Children(ctx, leases)
		if err != nil && !isNoNode(err) {
			return nil, err
		}
		raw, err := readChildren(ctx, c, leases, names)
		if err != nil {
			return nil, err
		}
		v.Nodes, v.Foreign = buildQueue(kindSemaphore, raw, now)
		markSemaphoreWaiters(v.Nodes, v.Limit)
		locks := join(p, "locks")
		names, _, err = c.Children(ctx, locks)
		if err != nil && !isNoNode(err) {
			return nil, err
		}
		raw, err = readChildren(ctx, c, locks, names)
		if err != nil {
			return nil, err
		}
		v.Acquirers, _ = buildQueue(kindMutex, raw, now)
		if v.Nodes == nil {
			v.Nodes = []NodeView{}
		}
	case kindNone:
		v.Children = len(kids) // a plain node: its children are no queue
	default:
		raw, err := readChildren(ctx, c, p, kids)
		if err != nil {
			return nil, err
		}
		v.Nodes, v.Foreign = buildQueue(v.Kind, raw, now)
		if v.Nodes == nil {
			v.Nodes = []NodeView{}
		}
	}
	return v, nil
}
