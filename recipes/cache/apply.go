package cache

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// onReply applies what a read or listing found.
func (l *loop) onReply(r *reply) {
	l.keepWatch(r)
	if r.epoch != l.epoch {
		return // an earlier session's: everything is being read again
	}
	e := r.e
	if r.err != nil && !errors.Is(r.err, zk.ErrNoNode) {
		if e.gone {
			return
		}
		busy, again := busyFlags(r.kind)
		e.jobs &^= busy | again
		l.failed(r.job, r.err)
		return
	}
	l.retryWait = retryMin
	switch r.kind {
	case readNode:
		l.applyNode(r)
	case listKids:
		l.applyKids(r)
	}
	l.done(e, r.kind)
}

// applyNode applies a read of one node.
func (l *loop) applyNode(r *reply) {
	e := r.e
	if e.gone {
		return
	}
	if !r.exists {
		if e.live {
			l.remove(e)
		} else if e != l.c.root {
			l.detach(e) // a name a stale listing brought back: gone already
		}
		return
	}
	if l.c.opt.noData {
		r.data = nil
	}
	c := l.c
	listing := false // a listing of e was just asked for, or is not needed
	switch {
	case !e.live:
		c.mu.Lock()
		e.live, e.data = true, r.data
		e.setStat(&r.stat)
		c.publishLocked(Event{Type: Created, Node: e.node()})
		c.mu.Unlock()
		switch {
		case !l.canList(e):
		case l.watch != nil && !l.initialized && r.stat.NumChildren == 0:
			// The persistent mode's first load lists no node its read
			// shows childless (most nodes of a tree are leaves): the
			// watch tells of every child made after the read (see
			// onWatchEvent for one made while it was in flight). A node
			// that comes later is listed, as before: the listing keeps
			// its child version current, so a resync needs none.
			e.kidsCv = r.stat.Cversion
			listing = true
		default:
			l.schedule(e, listKids)
			listing = true
		}
	case r.stat.Czxid != e.czxid || r.stat.Mzxid != e.mzxid:
		recreated := r.stat.Czxid != e.czxid
		c.mu.Lock()
		old := e.node()
		e.data = r.data
		e.setStat(&r.stat)
		c.publishLocked(Event{Type: Changed, Node: e.node(), Old: old})
		c.mu.Unlock()
		if recreated && l.canList(e) {
			l.schedule(e, listKids) // a new incarnation: its children are others
			listing = true
		}
	default:
		c.mu.Lock()
		e.setStat(&r.stat) // the same write; child counts may have moved
		c.mu.Unlock()
	}
	if l.watch != nil && !listing && r.stat.Cversion != e.kidsCv && l.canList(e) {
		// The persistent mode's watch tells of no child list's change:
		// a read that shows one (after a resync, say) lists the node.
		l.schedule(e, listKids)
	}
}

// applyKids applies a listing of e's children: names not seen before become
// placeholders to read, names gone take their subtree out of the view.
func (l *loop) applyKids(r *reply) {
	e := r.e
	if e.gone || !e.live {
		return
	}
	if !r.exists { // e is gone: its own read will say so
		l.schedule(e, readNode)
		return
	}
	c := l.c
	e.kidsCv = r.stat.Cversion
	// Mark the cached children the listing names (found through the
	// index), add those it names that are not cached, then take out the
	// unmarked ones: no set of names is built.
	var fresh []string
	if e.kids == nil {
		fresh = r.kids
	} else {
		// The index is the loop's to write: reading it here needs no lock.
		for _, name := range r.kids {
			l.pathBuf = appendChildPath(l.pathBuf[:0], e.path, name)
			if k := c.index[string(l.pathBuf)]; k != nil {
				k.jobs |= seen
			} else {
				fresh = append(fresh, name)
			}
		}
		var gone []*entry
		for _, k := range e.children() {
			if k.has(seen) {
				k.jobs &^= seen
			} else {
				gone = append(gone, k)
			}
		}
		for _, k := range gone {
			l.remove(k)
		}
	}
	for _, name := range fresh {
		l.addKid(e, name, len(fresh))
	}
}

// addKid makes a placeholder for e's child name, unless the filter leaves
// it out, and reads it. hint sizes e's first list of children.
func (l *loop) addKid(e *entry, name string, hint int) {
	c := l.c
	p := childPath(e.path, name) // the listing's strings are not kept
	if c.opt.filter != nil && !c.opt.filter(p) {
		return
	}
	k := &entry{path: p}
	c.mu.Lock()
	e.addKid(k, hint)
	c.index[p] = k
	c.mu.Unlock()
	l.schedule(k, readNode)
}

// parentOf returns e's parent entry (nil for the root).
func (l *loop) parentOf(e *entry) *entry {
	if e == l.c.root {
		return nil
	}
	return l.c.index[parentPath(e.path)]
}

// remove takes e and everything below it out of the view, announcing each
// live node's deletion, children first. The root stays known (as a
// placeholder), so that its return is noticed.
func (l *loop) remove(e *entry) {
	c := l.c
	c.mu.Lock()
	parent := l.parentOf(e)
	e.walk(func(x *entry) {
		if x.live {
			c.publishLocked(Event{Type: Deleted, Node: x.node()})
		}
		if x == c.root {
			x.live, x.data, x.kids = false, nil, nil
			x.setStat(&zk.Stat{})
			return
		}
		x.gone, x.live = true, false
		delete(c.index, x.path)
		l.dropWatches(x.path)
	})
	if parent != nil {
		parent.removeKid(e)
	}
	c.mu.Unlock()
}

// detach forgets a placeholder that was never announced.
func (l *loop) detach(e *entry) {
	c := l.c
	c.mu.Lock()
	parent := l.parentOf(e)
	e.gone = true
	delete(c.index, e.path)
	if parent != nil {
		parent.removeKid(e)
	}
	c.mu.Unlock()
}
