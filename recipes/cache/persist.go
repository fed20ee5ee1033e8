package cache

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// The persistent mode: a cache of a whole subtree (no depth limit) on a
// server with persistent watches (ZooKeeper 3.6+) sets one persistent
// recursive watch on its root, before its first read, instead of a watch
// per node. Reads then set no watch. The watch tells of every node created,
// deleted or changed under the root, and each event is, as in the per-node
// mode, only a reason to read (see loop.go):
//   - a change or deletion of a known node reads the node;
//   - a node created under a live parent becomes a placeholder to read, as
//     a listing would make it; but while a listing of the parent is in
//     flight (its reply may predate the create, and would drop the
//     placeholder), the parent is listed again after it instead.
// The watch gives no children-changed events: a listing is only needed on
// the first load, for a node made again, and after a resync; and the first
// load lists no node whose read shows no children (most of a tree's nodes
// are leaves): a child made after that read comes as an event, and one made
// while the read was in flight has the node read again, which then shows it.
//
// After a lost connection the server sets the watch again but replays
// nothing: the client then sends a resync event, and the cache reads and
// lists everything again, keeping only the differences, as Curator's
// CuratorCache does. Close removes the watch from the server.

// removeWithin bounds Close's removal of the watch (Close's ctx may bound
// it more): with no connection it stays on the server until the session
// ends.
const removeWithin = time.Second

// notStartedPoll is how often a cache started before its client looks
// whether the client has started.
const notStartedPoll = 50 * time.Millisecond

// setupWatch sets the persistent watch when the cache can use one, and
// stops the per-node notifications then. It reports false when the cache
// is closing. On a server without persistent watches, or if setting it
// fails otherwise, the cache keeps its per-node watches.
func (l *loop) setupWatch() bool {
	c := l.c
	if c.opt.maxDepth != noLimit || c.opt.perNode {
		return true
	}
	w, err := c.cl.AddWatch(c.stopCtx, c.path, true)
	for errors.Is(err, zkrecipes.ErrNotStarted) {
		// Started before its client: wait for the client rather than fall
		// back to a watch per node for good.
		t := time.NewTimer(notStartedPoll)
		select {
		case <-t.C:
		case <-c.stopCtx.Done():
			t.Stop()
			return false
		}
		w, err = c.cl.AddWatch(c.stopCtx, c.path, true)
	}
	switch {
	case err == nil:
		l.watch = w
		l.watchEvents = w.Events()
		l.stopEvents()
		l.events = nil
		return true
	case c.stopCtx.Err() != nil, errors.Is(err, zkrecipes.ErrClosed):
		return false
	case errors.Is(err, client.ErrWatchUnsupported):
		c.log.Debug("zkrecipes: cache: the server has no persistent watches; a watch per node", "path", c.path)
	default:
		c.log.Warn("zkrecipes: cache: could not set its persistent watch; a watch per node instead", "path", c.path, "error", err)
	}
	return true
}

// removeWatch removes the persistent watch, if any, from the server.
func (l *loop) removeWatch() {
	if l.watch == nil {
		return
	}
	l.c.mu.RLock()
	parent := l.c.closeCtx
	l.c.mu.RUnlock()
	if parent == nil {
		parent = context.Background() // the loop ended with the client
	}
	ctx, cancel := context.WithTimeout(parent, removeWithin)
	defer cancel()
	if err := l.watch.Remove(ctx); err != nil {
		l.c.log.Debug("zkrecipes: cache: its persistent watch stays on the server until the session ends", "path", l.c.path, "error", err)
	}
}

// onWatchEvent turns an event of the persistent watch into reads.
func (l *loop) onWatchEvent(ev client.WatchEvent) {
	if ev.Resync {
		if ev.SessionID != 0 && l.session != 0 && ev.SessionID != l.session {
			// A resync on a session whose state has not reached the loop
			// yet (the loss and the new session come on the states'
			// channel, the resync on the watch's): reading now would be
			// undone by the loss's new epoch. It is done at the new
			// session's state instead (onState).
			l.pendingResync = ev.SessionID
			return
		}
		l.rebuild = false
		l.readAll()
		return
	}
	c := l.c
	e := c.index[ev.Path] // the loop's to write: no lock to read it here
	var parent *entry
	if e == nil && ev.Type == zk.EventNodeCreated && ev.Path != c.path {
		parent = c.index[parentPath(ev.Path)]
	}
	switch {
	case e != nil:
		l.schedule(e, readNode)
	case parent == nil || parent.gone || !l.canList(parent) || (!parent.live && l.initialized):
		// Unknown parent, or one to be read: its own read or listing,
		// still to come, finds this node.
	case !parent.live:
		// A placeholder of the first load: the read in flight may predate
		// the create and show no children, and the first load lists no
		// childless node (see applyNode): read it again after, which
		// shows the child.
		l.schedule(parent, readNode)
	case parent.has(kidsBusy):
		l.schedule(parent, listKids) // after the listing in flight
	default:
		l.addKid(parent, ev.Path[len(childPath(parent.path, "")):], 1)
	}
}

// parentPath is the path of p's parent ("/" for a node under the root).
func parentPath(p string) string {
	i := len(p) - 1
	for i > 0 && p[i] != '/' {
		i--
	}
	if i == 0 {
		return "/"
	}
	return p[:i]
}
