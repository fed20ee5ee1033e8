package cache

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// onReply applies what a read or listing found.
func (l *loop) onReply(r reply) {
	if r.epoch != l.epoch {
		return // an earlier session's: everything is being read again
	}
	e := r.e
	if r.err != nil && !errors.Is(r.err, zk.ErrNoNode) {
		if e.gone {
			return
		}
		if r.kind == readNode {
			e.dataBusy, e.dataAgain = false, false
		} else {
			e.kidsBusy, e.kidsAgain = false, false
		}
		l.failed(r)
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
func (l *loop) applyNode(r reply) {
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
	listing := false // a listing of e was just asked for
	switch {
	case !e.live:
		c.mu.Lock()
		e.live, e.data, e.stat = true, r.data, r.stat
		c.publishLocked(Event{Type: Created, Node: e.node()})
		c.mu.Unlock()
		if l.canList(e) {
			l.schedule(e, listKids)
			listing = true
		}
	case r.stat.Czxid != e.stat.Czxid || r.stat.Mzxid != e.stat.Mzxid:
		recreated := r.stat.Czxid != e.stat.Czxid
		c.mu.Lock()
		old := e.node()
		e.data, e.stat = r.data, r.stat
		c.publishLocked(Event{Type: Changed, Node: e.node(), Old: old})
		c.mu.Unlock()
		if recreated && l.canList(e) {
			l.schedule(e, listKids) // a new incarnation: its children are others
			listing = true
		}
	default:
		c.mu.Lock()
		e.stat = r.stat // the same write; child counts may have moved
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
func (l *loop) applyKids(r reply) {
	e := r.e
	if e.gone || !e.live {
		return
	}
	if !r.exists { // e is gone: its own read will say so
		l.schedule(e, readNode)
		return
	}
	e.kidsCv = r.stat.Cversion
	listed := make(map[string]struct{}, len(r.kids))
	for _, name := range r.kids {
		listed[name] = struct{}{}
	}
	for name, k := range e.kids {
		if _, ok := listed[name]; !ok {
			l.remove(k)
		}
	}
	for _, name := range r.kids {
		if _, ok := e.kids[name]; !ok {
			l.addKid(e, name)
		}
	}
}

// addKid makes a placeholder for e's child name, unless the filter leaves
// it out, and reads it.
func (l *loop) addKid(e *entry, name string) {
	c := l.c
	p := childPath(e.path, name)
	if c.opt.filter != nil && !c.opt.filter(p) {
		return
	}
	k := &entry{path: p, depth: e.depth + 1, parent: e}
	c.mu.Lock()
	if e.kids == nil {
		e.kids = make(map[string]*entry)
	}
	e.kids[k.name()] = k // keyed by k.path's own bytes: the listing's strings are not kept
	c.index[p] = k
	c.mu.Unlock()
	l.schedule(k, readNode)
}

// remove takes e and everything below it out of the view, announcing each
// live node's deletion, children first. The root stays known (as a
// placeholder), so that its return is noticed.
func (l *loop) remove(e *entry) {
	c := l.c
	c.mu.Lock()
	e.walk(func(x *entry) {
		if x.live {
			c.publishLocked(Event{Type: Deleted, Node: x.node()})
		}
		if x == c.root {
			x.live, x.data, x.stat, x.kids = false, nil, zk.Stat{}, nil
			return
		}
		x.gone, x.live = true, false
		delete(c.index, x.path)
	})
	if e != c.root && e.parent != nil {
		delete(e.parent.kids, e.name())
	}
	c.mu.Unlock()
}

// detach forgets a placeholder that was never announced.
func (l *loop) detach(e *entry) {
	c := l.c
	c.mu.Lock()
	e.gone = true
	delete(c.index, e.path)
	if e.parent != nil {
		delete(e.parent.kids, e.name())
	}
	c.mu.Unlock()
}
