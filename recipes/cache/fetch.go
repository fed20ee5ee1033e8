package cache

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// fetch runs one job against ZooKeeper, setting the watch that will tell of
// the next change: a data watch on a node read, a child watch on a node
// listed, and an existence watch on the root while it is missing (a missing
// node below the root needs none: its parent's child watch covers it). The
// loop gets every notification from the client's NodeEvents stream, not
// from the watches themselves: it keeps them only to give them up when
// they are no longer needed (see keepWatch), so that a closed cache leaves
// no watch on the server.
//
// (The persistent mode, where one watch covers the subtree, reads in
// batches without a watch instead: see loop.pump.)
func (c *Cache) fetch(ctx context.Context, j job, isRoot bool) reply {
	r := reply{job: j}
	p := j.e.path
	if j.kind == listKids {
		kids, st, w, err := c.cl.ChildrenWatch(ctx, p)
		r.watch = w
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
		data, st, w, err := c.cl.GetWatch(ctx, p)
		if err == nil {
			r.exists, r.data, r.stat, r.watch = true, data, *st, w
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
		ok, _, w, err := c.cl.ExistsWatch(ctx, p)
		switch {
		case err != nil:
			r.err = err
			return r
		case !ok:
			r.watch = w
			return r
		}
		w.Stop()
	}
}

// nodeWatches are the per-node mode's watches on one node, kept by the
// loop until they fire or are no longer needed.
type nodeWatches struct {
	node, kids *client.Watch // data (or existence) watch; child watch
}

// keepWatch keeps the watch a reply set, in place of the one its node had
// of that kind (which fired, or which the new one joined), or gives it up
// when it is of no use: an earlier session's reply, or a node gone.
func (l *loop) keepWatch(r *reply) {
	w := r.watch
	if w == nil {
		return
	}
	if r.epoch != l.epoch || r.e.gone {
		w.Stop()
		return
	}
	if l.watches == nil {
		l.watches = make(map[string]*nodeWatches)
	}
	nw := l.watches[r.e.path]
	if nw == nil {
		nw = &nodeWatches{}
		l.watches[r.e.path] = nw
	}
	slot := &nw.node
	if r.kind == listKids {
		slot = &nw.kids
	}
	(*slot).Stop()
	*slot = w
}

// firedWatches gives up the watches on path that a notification of typ
// fired (a fired watch costs nothing on the server, but the client keeps
// it until it is given up or read).
func (l *loop) firedWatches(path string, typ zk.EventType) {
	nw := l.watches[path]
	if nw == nil {
		return
	}
	switch typ {
	case zk.EventNodeChildrenChanged:
		nw.kids.Stop()
		nw.kids = nil
	case zk.EventNodeDeleted:
		nw.node.Stop()
		nw.kids.Stop()
		nw.node, nw.kids = nil, nil
	default: // created, data changed
		nw.node.Stop()
		nw.node = nil
	}
	if nw.node == nil && nw.kids == nil {
		delete(l.watches, path)
	}
}

// dropWatches gives up the watches on path.
func (l *loop) dropWatches(path string) {
	l.firedWatches(path, zk.EventNodeDeleted)
}

// stopWatches gives up every watch the loop keeps: at a session's loss
// (they are gone already) and when the cache ends.
func (l *loop) stopWatches() {
	for _, nw := range l.watches {
		nw.node.Stop()
		nw.kids.Stop()
	}
	l.watches = nil
}
