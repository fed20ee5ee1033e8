package cache

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"
)

// fetch runs one job against ZooKeeper, setting the watch that will tell of
// the next change: a data watch on a node read, a child watch on a node
// listed, and an existence watch on the root while it is missing (a missing
// node below the root needs none: its parent's child watch covers it). The
// channels the client returns for those watches are not read: the loop
// gets every notification from the client's NodeEvents stream.
//
// (The persistent mode, where one watch covers the subtree, reads in
// batches without a watch instead: see loop.pump.)
func (c *Cache) fetch(ctx context.Context, j job, isRoot bool) reply {
	r := reply{job: j}
	p := j.e.path
	if j.kind == listKids {
		kids, st, _, err := c.cl.ChildrenW(ctx, p)
		switch {
		case err == nil:
			r.exists, r.kids, r.stat = true, kids, *st
		case errors.Is(err, zk.ErrNoNode):
		default:
			r.err = err
		}
		return r
	}
	for {
		data, st, _, err := c.cl.GetW(ctx, p)
		if err == nil {
			r.exists, r.data, r.stat = true, data, *st
			return r
		}
		if !errors.Is(err, zk.ErrNoNode) {
			r.err = err
			return r
		}
		if !isRoot {
			return r
		}
		// The root is missing: watch for its creation. If it was made
		// in between, read it after all.
		ok, _, _, err := c.cl.ExistsW(ctx, p)
		switch {
		case err != nil:
			r.err = err
			return r
		case !ok:
			return r
		}
	}
}
