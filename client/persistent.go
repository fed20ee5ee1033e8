package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// ErrWatchUnsupported is returned by AddWatch when the server (before
// ZooKeeper 3.6) has no persistent watches. It wraps ErrUnsupported.
var ErrWatchUnsupported = fmt.Errorf("%w: persistent watches (ZooKeeper 3.6+)", ErrUnsupported)

// WatchEvent is one event of a persistent watch (see AddWatch).
type WatchEvent struct {
	// Type is zk.EventNodeCreated, EventNodeDeleted, EventNodeDataChanged
	// or (a non-recursive watch only) EventNodeChildrenChanged; 0 on a
	// resync event.
	Type zk.EventType
	// Path is the node's, relative to the namespace.
	Path string
	// Zxid is the change's zxid (ZooKeeper 3.9 and later), else -1.
	Zxid int64
	// Resync marks an event that carries no change: the connection was
	// lost and the watch is set again, and the server does not replay
	// what changed meanwhile. Read again what you rely on.
	Resync bool
	// SessionID is, on a resync event, the session the watch is set on
	// now: it tells a resync on a new session from one within the old, for
	// a reader that also follows Subscribe's states (the two arrive on
	// different channels, in either order).
	SessionID int64
}

// PersistentWatch is a watch AddWatch set: it stays until Remove, the
// client's Close, or (set again on the next session, with a resync event)
// the session's loss.
type PersistentWatch struct {
	c         *Client
	full      string
	recursive bool
	sub       *pubsub.Sub[WatchEvent]
}

// persistKey names one server watch: a path and its mode.
type persistKey struct {
	full      string
	recursive bool
}

// AddWatch sets a persistent watch on path (ZooKeeper 3.6+): with
// recursive, on path and every node under it (created, deleted and data
// changed; never children changed), else on path alone (its data and
// children). Unlike GetW's, the watch does not end when it fires: its
// events arrive on Events in the server's order, none dropped, until
// Remove or Close. After a lost connection it is set again, and Events gets
// a WatchEvent with Resync set, since the server does not replay the
// changes it missed; Curator's PersistentWatcher behaves the same.
//
// Two watches on one path share the server's watch and must have the same
// mode (else *PathError). A server before 3.6 answers ErrWatchUnsupported.
// Before ZooKeeper 3.9 a server keeps one watch mode per session and path:
// a GetW, ExistsW or ChildrenW on the very path of a non-recursive
// persistent watch turns it into a one-shot watch there, so do not mix the
// two on one path (a recursive watch and one-shot watches below it are fine).
func (c *Client) AddWatch(ctx context.Context, path string, recursive bool) (*PersistentWatch, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, err
	}
	w := &PersistentWatch{c: c, full: full, recursive: recursive, sub: pubsub.New[WatchEvent]()}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errClosed
	}
	if c.persist == nil {
		c.persist = make(map[*PersistentWatch]struct{})
	}
	for o := range c.persist {
		if o.full == full && o.recursive != recursive {
			c.mu.Unlock()
			return nil, &PathError{Path: path, Reason: "already watched persistently in the other mode"}
		}
	}
	c.persist[w] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		w.sub.Run()
	}()
	c.persistMu.Lock()
	defer c.persistMu.Unlock()
	if err := c.setPersistent(ctx, persistKey{full, recursive}); err != nil {
		w.forget()
		return nil, err
	}
	return w, nil
}

// setPersistent sets the server's watch for k on the current connection,
// under the retry policy.
func (c *Client) setPersistent(ctx context.Context, k persistKey) error {
	if c.noAddWatch.Load() {
		return ErrWatchUnsupported
	}
	mode := wire.AddWatchPersistent
	if k.recursive {
		mode = wire.AddWatchPersistentRecursive
	}
	// With ctx: a request cut short by it leaves no watch kept by the
	// connection (wire.Conn.AddWatch).
	_, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (struct{}, error) {
		return struct{}{}, conn.AddWatch(ctx, k.full, mode)
	})
	if errors.Is(err, wire.ErrUnimplemented) {
		// A server before 3.6 also drops the connection after refusing
		// the opcode: ask it no more.
		c.noAddWatch.Store(true)
		return ErrWatchUnsupported
	}
	return err
}

// Events returns the watch's events. It is closed by Remove and Close.
func (w *PersistentWatch) Events() <-chan WatchEvent {
	if w == nil || w.sub == nil {
		return pubsub.Closed[WatchEvent]()
	}
	return w.sub.Out()
}

// Remove ends the watch: Events is closed and, when no other watch of the
// client shares it, the server's watch is removed. It is idempotent.
func (w *PersistentWatch) Remove(ctx context.Context) error {
	if w == nil || w.c == nil {
		return nil
	}
	c := w.c
	c.persistMu.Lock() // an AddWatch of the path waits: it sets the watch again after
	defer c.persistMu.Unlock()
	last, was := w.forget()
	if !was || !last {
		return nil
	}
	return c.run(ctx, func(conn *wire.Conn) error { return conn.RemovePersistentWatch(bg, w.full) })
}

// forget drops w from the client and stops its events; last reports whether
// no other watch of the client is on its path, was whether w was there.
func (w *PersistentWatch) forget() (last, was bool) {
	c := w.c
	c.mu.Lock()
	_, was = c.persist[w]
	delete(c.persist, w)
	last = true
	for o := range c.persist {
		if o.full == w.full {
			last = false
		}
	}
	c.mu.Unlock()
	w.sub.Stop()
	return last, was
}

// wants reports whether a notification belongs to the watch.
func (w *PersistentWatch) wants(ev zk.Event) bool {
	switch {
	case ev.Path == w.full:
		return !w.recursive || ev.Type != zk.EventNodeChildrenChanged
	case !w.recursive || ev.Type == zk.EventNodeChildrenChanged:
		return false
	case w.full == "/":
		return true
	}
	return strings.HasPrefix(ev.Path, w.full+"/")
}

// onPersistentLocked hands a notification to the persistent watches that
// want it. c.mu is held.
func (c *Client) onPersistentLocked(ev zk.Event, zxid int64) {
	for w := range c.persist {
		if w.wants(ev) {
			w.sub.Push(WatchEvent{Type: ev.Type, Path: c.rel(ev.Path), Zxid: zxid})
		}
	}
}

// resyncLocked tells every persistent watch that events may have been
// missed, once the session is back (c.mu held). On a new session, whose
// server knows none of them, each is set again first.
func (c *Client) resyncLocked(newSession bool) {
	if len(c.persist) == 0 {
		return
	}
	if !newSession {
		var id int64
		if c.sess != nil {
			id = c.sess.ID()
		}
		for w := range c.persist {
			w.sub.Push(WatchEvent{Resync: true, Zxid: -1, SessionID: id})
		}
		return
	}
	sess := c.sess
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.persistMu.Lock() // no add or remove meanwhile: the set is the current one
		defer c.persistMu.Unlock()
		c.mu.Lock()
		keys := make(map[persistKey]struct{})
		for w := range c.persist {
			keys[persistKey{w.full, w.recursive}] = struct{}{}
		}
		c.mu.Unlock()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-sess.Done():
			case <-c.closedCh:
			case <-ctx.Done():
			}
			cancel()
		}()
		for k := range keys {
			if err := c.setPersistent(ctx, k); err != nil && ctx.Err() == nil {
				c.log.Warn("could not set a persistent watch again on the new session", "path", k.full, "err", err)
			}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.sess != sess {
			return
		}
		for w := range c.persist {
			w.sub.Push(WatchEvent{Resync: true, Zxid: -1, SessionID: sess.ID()})
		}
	}()
}

// stopPersistentLocked ends every persistent watch's events (Close).
func (c *Client) stopPersistentLocked() {
	for w := range c.persist {
		w.sub.Stop()
	}
	c.persist = nil
}
