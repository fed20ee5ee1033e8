package wire

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// A one-shot watch that its caller gives up (StopWatch), or that a request
// abandoned by its ctx set on the server, is forgotten here at once and
// removed from the server with removeWatches, so that a waiter that gives
// up leaves nothing behind: no channel in the table, no server watch, no
// goroutine. The server keeps one data watch and one child watch per path
// and connection, shared by every request that set it, so the removal is
// sent only when no other channel of the same server watch is left and no
// request that would set it again is in flight; it is queued under c.mu,
// so every watching request queued after it is sent after it too.
//
// A server without removeWatches (before ZooKeeper 3.5; the Conn asks once,
// see askRemovalLocked) gets no removal: the Conn only forgets given-up
// watches here, and each one stays on the server until it fires (its
// event is dropped, as no channel is left for it) or the connection ends
// (a new connection sets again only the watches in the table). That costs
// the server one watch per given-up path, and the client nothing.

// Watcher types of removeWatches for one-shot watches.
const (
	watcherChildren int32 = 1
	watcherData     int32 = 2
)

// StopWatch gives up ch, a one-shot watch that GetW, ExistsW or ChildrenW
// set on path: it gets no event any more, and the server's watch is
// removed when ch was the last one on it. It does not wait for the server.
// A watch that fired or ended already, or that this Conn never set, is no
// error; neither is a nil channel or a nil Conn.
func (c *Conn) StopWatch(path string, ch <-chan zk.Event) {
	if c == nil || ch == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &c.watches
	t.mu.Lock()
	sw, found := t.forgetLocked(path, ch)
	if found {
		t.orphans[sw] = struct{}{}
	}
	t.mu.Unlock()
	if found {
		c.removeOrphanLocked(sw)
	}
}

// forgetLocked removes ch from path's one-shot watches. t.mu must be held.
func (t *watchTable) forgetLocked(path string, ch <-chan zk.Event) (serverWatch, bool) {
	for _, kind := range []watchKind{watchData, watchExist, watchChild} {
		k := watchKey{path, kind}
		chs := t.oneShot[k]
		for i, c := range chs {
			if c != ch {
				continue
			}
			chs = append(chs[:i], chs[i+1:]...)
			if len(chs) == 0 {
				delete(t.oneShot, k)
			} else {
				t.oneShot[k] = chs
			}
			return serverWatch{path, kind.server()}, true
		}
	}
	return serverWatch{}, false
}

// inUseLocked reports whether a channel, a request in flight or a
// persistent watch on the same path still needs the server watch sw
// (before ZooKeeper 3.9, removing a path's data watch takes its persistent
// watch with it). t.mu must be held.
func (t *watchTable) inUseLocked(sw serverWatch) (used, waitPending bool) {
	if t.pending[sw] > 0 {
		return true, true
	}
	if _, ok := t.persistent[sw.path]; ok {
		return true, false
	}
	kinds := []watchKind{watchChild}
	if sw.typ == watcherData {
		kinds = []watchKind{watchData, watchExist}
	}
	for _, kind := range kinds {
		if len(t.oneShot[watchKey{sw.path, kind}]) > 0 {
			return true, false
		}
	}
	return false, false
}

// pendLocked counts a watching request r as in flight (see StopWatch). c.mu
// and t.mu must be held.
func (t *watchTable) pendLocked(r *request) {
	t.pending[serverWatch{r.path, r.watch.server()}]++
}

// unpendLocked counts r as no longer in flight. t.mu must be held.
func (t *watchTable) unpendLocked(r *request) {
	sw := serverWatch{r.path, r.watch.server()}
	if n := t.pending[sw]; n > 1 {
		t.pending[sw] = n - 1
	} else {
		delete(t.pending, sw)
	}
}

// keepWatch settles the watch a watching request's reply set on the
// server (set reports that it did) on the reader goroutine: it returns the
// watch's channel, of kind, unless the caller has left (its ctx ended),
// whose watch is then removed from the server as a given-up one.
func (c *Conn) keepWatch(r *request, kind watchKind, set bool) <-chan zk.Event {
	kept := set && r.claim.CompareAndSwap(claimOpen, claimKept)
	sw := serverWatch{r.path, kind.server()}
	t := &c.watches
	t.mu.Lock()
	t.unpendLocked(r)
	var ch chan zk.Event
	if kept {
		ch = t.addLocked(r.path, kind)
	} else if set {
		t.orphans[sw] = struct{}{}
	}
	_, orphan := t.orphans[sw]
	check := orphan && t.pending[sw] == 0
	t.mu.Unlock()
	if check {
		c.mu.Lock()
		c.removeOrphanLocked(sw)
		c.mu.Unlock()
	}
	return ch
}

// unpendFailed counts the watching requests of a lost link as no longer in
// flight: the server's watches went with the connection.
func (c *Conn) unpendFailed(rs []*request) {
	t := &c.watches
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range rs {
		if r.watching {
			t.unpendLocked(r)
		}
	}
}

// Whether the server has removeWatches (ZooKeeper 3.5+), as the Conn
// knows it. A server before 3.5 answers an opcode it does not know with an
// error and then closes the connection, so the Conn asks first, once: it
// looks for /zookeeper/config, which every server since 3.5 has, with a
// getACL (not a read of data, children or existence, so a count of those
// per connection stays what the recipes' own waits make it).
const (
	removalUnknown int32 = iota // not asked yet
	removalAsking               // the question is in flight: removals wait for it
	removalYes
	removalNo
)

// removeOrphanLocked sends removeWatches for sw, a server watch that may
// stand with no channel left for it, once nothing else needs it. Without
// a connection nothing is sent: the next one sets again only the watches
// in the table. c.mu must be held.
func (c *Conn) removeOrphanLocked(sw serverWatch) {
	t := &c.watches
	t.mu.Lock()
	if _, ok := t.orphans[sw]; !ok {
		t.mu.Unlock()
		return
	}
	used, waitPending := t.inUseLocked(sw)
	switch {
	case waitPending: // decided once the request in flight is answered
		t.mu.Unlock()
		return
	case c.removal == removalAsking && !used:
		t.mu.Unlock() // sent (or not) once the server's answer is in
		return
	case c.removal == removalUnknown && !used && c.link != nil && !c.closing:
		c.removal = removalAsking
		t.mu.Unlock()
		c.askRemovalLocked()
		return
	}
	// Either removed now, or some channel owns the server watch (and
	// removes it when it goes in turn), or the server cannot remove it.
	delete(t.orphans, sw)
	t.mu.Unlock()
	if used || c.removal != removalYes || c.closing || c.link == nil {
		return
	}
	r := newRequest(opRemoveWatches, nil)
	r.claim.Store(claimLeft) // no one waits for it
	c.link.queueLocked(r, func(e *encoder) { e.string(sw.path); e.int32(sw.typ) })
	c.link.flushLocked(false) // never write here: this may be the reader goroutine
}

// configNode exists on every server since ZooKeeper 3.5, the first with
// removeWatches.
const configNode = "/zookeeper/config"

// askRemovalLocked asks the server whether it has removeWatches, and
// sends the removals waiting for the answer once it is in. c.mu must be
// held, with a link.
func (c *Conn) askRemovalLocked() {
	r := kindRequest(opGetACL, replyNone, false, 0, "")
	r.adone = func(a *access.Reply) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case a.Err == nil, errors.Is(a.Err, zk.ErrNoAuth): // the node is there
			c.removal = removalYes
		case errors.Is(a.Err, zk.ErrNoNode):
			c.removal = removalNo
			c.cfg.Logger.Info("the server has no removeWatches (ZooKeeper before 3.5): a watch given up stays on the server until it fires or the connection ends",
				"server", c.server)
		default: // no answer (the connection was lost): ask again later
			c.removal = removalUnknown
		}
		t := &c.watches
		t.mu.Lock()
		waiting := make([]serverWatch, 0, len(t.orphans))
		for sw := range t.orphans {
			waiting = append(waiting, sw)
		}
		t.mu.Unlock()
		for _, sw := range waiting {
			c.removeOrphanLocked(sw)
		}
	}
	c.link.queueLocked(r, func(e *encoder) { encodePath(e, configNode) })
	c.link.flushLocked(false)
}

// WatchCount reports the one-shot watches the Conn keeps (channels not yet
// fired, given up or ended) and its persistent watches: what a new
// connection of the session would set again.
func (c *Conn) WatchCount() (oneShot, persistent int) {
	t := &c.watches
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, chs := range t.oneShot {
		oneShot += len(chs)
	}
	return oneShot, len(t.persistent)
}
