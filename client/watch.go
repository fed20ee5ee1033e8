package client

import (
	"context"
	"sync"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
)

// Watch is a one-shot watch on one node that its holder can give up
// (GetWatch, ExistsWatch, ChildrenWatch). It gets one event, as GetW's
// channel does: the node changed, was created or deleted, or its children
// changed, or (zk.EventNotWatching) the watch was dropped because its
// session or connection ended. Stop gives it up: the watch then delivers
// nothing more.
//
// Why it exists: a watch the server has set stays there until it fires;
// a waiter that gives up (a Lock whose ctx ended) would otherwise leave
// its watch on the server, an entry in the client and whatever waits on
// it, for as long as the node it watched does not change. Callers that
// watch the same node in the same way on the same connection, while it
// stays up, share one server watch; Stop drops the caller from it, and
// when the last caller gives up, the watch is forgotten by the client at
// once and removed from the server (removeWatches, ZooKeeper 3.5+; an
// older server keeps it until it fires or the connection ends, which
// costs the client nothing). After a reconnect, callers set a fresh watch
// rather than join one the session set again: each then stands on its own
// request.
//
// The callers of one server watch all receive from the connection's own
// channel, which delivers the event to one of them and then closes;
// resolve gives each of them the event. So the event reaches a waiter with
// no goroutine in between.
type Watch struct {
	set *watchSet
	sh  *sharedWatch

	// guarded by watchSet.mu
	events  chan zk.Event // Events' channel, made on first use
	stopped chan struct{} // closed by Stop once Events was called
	gaveUp  bool          // Stop was called
}

// raw returns the channel that the watch's event comes on. It is shared by
// every Watch on the same server watch: it delivers the event to one
// receiver and then closes, so every receive from it must go through
// resolve, which returns the event to all of them. A nil or zero Watch's
// is nil.
func (w *Watch) raw() <-chan zk.Event {
	if w == nil || w.sh == nil {
		return nil
	}
	return w.sh.raw
}

// resolve returns the watch's event, given what a receive from C returned
// (the value and whether it was one): the event itself for the receiver
// that got it, and for the others (whose receive found C closed), the same
// event once that receiver has passed it on, which it does at once. It
// also forgets the fired server watch. Call it only with a receive's
// result.
func (w *Watch) resolve(ev zk.Event, ok bool) zk.Event {
	sh := w.sh
	if ok {
		w.set.fire(sh, ev)
		return ev
	}
	<-sh.fired
	return sh.ev
}

// Events returns a channel that gets the watch's one event and is then
// closed, or gets nothing once Stop was called. It costs a goroutine per
// Watch until the event comes or Stop; the recipes' own receive (through internal/access) does not.
func (w *Watch) Events() <-chan zk.Event {
	if w == nil || w.sh == nil {
		return nil
	}
	w.set.mu.Lock()
	defer w.set.mu.Unlock()
	if w.events == nil {
		w.events = make(chan zk.Event, 1)
		if !w.gaveUp {
			w.stopped = make(chan struct{})
			go w.deliver(w.stopped)
		}
	}
	return w.events
}

// deliver waits for the event on Events' behalf, until stopped closes.
func (w *Watch) deliver(stopped <-chan struct{}) {
	var ev zk.Event
	select {
	case v, ok := <-w.sh.raw:
		ev = w.resolve(v, ok)
	case <-stopped:
		return
	}
	select {
	case <-stopped:
	default:
		w.events <- ev
		close(w.events)
	}
}

// Stop gives the watch up. It is idempotent and safe on a nil Watch. When
// the last caller of a server watch that has not fired gives up, the
// client forgets the watch and asks the server to remove it, without
// waiting for its answer.
func (w *Watch) Stop() {
	if w == nil || w.set == nil {
		return
	}
	s := w.set
	s.mu.Lock()
	sh := w.sh
	_, was := sh.subs[w]
	delete(sh.subs, w)
	last := was && len(sh.subs) == 0 // was: not fired (fire empties subs)
	if last {
		s.forgetLocked(sh)
	}
	if w.stopped != nil && !w.gaveUp {
		close(w.stopped)
	}
	w.gaveUp = true
	s.mu.Unlock()
	if last {
		sh.key.conn.StopWatch(sh.key.path, sh.raw)
	}
}

// watchKind is what a shared watch was set by.
type watchKind uint8

const (
	watchData     watchKind = iota // getData: the node changes or goes
	watchExists                    // exists: the node is created, changes or goes
	watchChildren                  // getChildren: its children change, or it goes
)

// watchKey names a shared watch: one node, watched one way, on one
// connection, in one up period of it (the client's upCh).
type watchKey struct {
	conn *wire.Conn
	up   <-chan struct{}
	path string
	kind watchKind
}

// sharedWatch is one server watch and the Watches it feeds.
type sharedWatch struct {
	key   watchKey
	raw   <-chan zk.Event // the connection's: one event, then closed
	fired chan struct{}   // closed once ev is set

	// guarded by watchSet.mu
	ev   zk.Event
	subs map[*Watch]struct{}
}

// watchSet holds a client's shared one-shot watches.
type watchSet struct {
	mu  sync.Mutex
	m   map[watchKey]*sharedWatch // the ones callers may join
	all map[*sharedWatch]struct{} // every one not fired or given up (two callers may each set one at once)
}

// watchRead is what a read that sets or joins a watch returned.
type watchRead struct {
	ok   bool // exists: the node exists
	data []byte
	kids []string
	st   *zk.Stat
}

// readFor reads full on conn as kind reads it, with a watch or without.
func readFor(ctx context.Context, conn *wire.Conn, kind watchKind, full string, watch bool) (watchRead, <-chan zk.Event, error) {
	var r watchRead
	var ch <-chan zk.Event
	var err error
	switch kind {
	case watchData:
		if watch {
			r.data, r.st, ch, err = conn.GetW(ctx, full)
		} else {
			r.data, r.st, err = conn.Get(ctx, full)
		}
	case watchExists:
		if watch {
			r.ok, r.st, ch, err = conn.ExistsW(ctx, full)
		} else {
			r.ok, r.st, err = conn.Exists(ctx, full)
		}
	case watchChildren:
		if watch {
			r.kids, r.st, ch, err = conn.ChildrenW(ctx, full)
		} else {
			r.kids, r.st, err = conn.Children(ctx, full)
		}
	}
	return r, ch, err
}

// getWatch reads the node at full on conn as kind reads it and subscribes
// to its shared watch, setting the server watch when there is none to
// join. A caller that joins reads without setting a watch: the shared one
// was set before its read, so any change after the read still fires it (a
// change between the two gives an event the read already saw, which is
// harmless).
func (s *watchSet) getWatch(ctx context.Context, conn *wire.Conn, up <-chan struct{}, full string, kind watchKind) (watchRead, *Watch, error) {
	key := watchKey{conn, up, full, kind}
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[watchKey]*sharedWatch)
	}
	// A shared watch whose event is in (though perhaps not yet received)
	// will not fire again: set a new one instead.
	if sh := s.m[key]; sh != nil && !s.firedLocked(sh) {
		w := s.joinLocked(sh)
		s.mu.Unlock()
		r, _, err := readFor(ctx, conn, kind, full, false)
		if err != nil {
			w.Stop()
			return watchRead{}, nil, err
		}
		return r, w, nil
	}
	s.mu.Unlock()
	r, ch, err := readFor(ctx, conn, kind, full, true)
	if ch == nil {
		// No watch was set (a read that failed), or it was given up with
		// its request (ctx ended).
		return r, nil, err
	}
	sh := &sharedWatch{key: key, raw: ch, fired: make(chan struct{}), subs: make(map[*Watch]struct{})}
	s.mu.Lock()
	if s.m[key] == nil { // else another caller set one meanwhile: this one stays private
		s.m[key] = sh
	}
	if s.all == nil {
		s.all = make(map[*sharedWatch]struct{})
	}
	s.all[sh] = struct{}{}
	w := s.joinLocked(sh)
	s.mu.Unlock()
	return r, w, nil
}

// firedLocked reports whether sh's event has come, even if none of its
// callers has received it yet (a caller that keeps a Watch without
// reading it, as a cache does): its event is then taken and recorded, and
// sh forgotten, so that no one joins a watch that will not fire again.
// s.mu must be held.
func (s *watchSet) firedLocked(sh *sharedWatch) bool {
	if isClosedChan(sh.fired) {
		return true
	}
	select {
	case ev, ok := <-sh.raw:
		if ok {
			s.forgetLocked(sh)
			sh.subs = map[*Watch]struct{}{}
			sh.ev = ev
			close(sh.fired)
		}
		// Else a caller received it and is about to record it (fire).
		return true
	default:
		return false
	}
}

// joinLocked adds a new Watch to sh. s.mu must be held.
func (s *watchSet) joinLocked(sh *sharedWatch) *Watch {
	w := &Watch{set: s, sh: sh}
	sh.subs[w] = struct{}{}
	return w
}

// forgetLocked forgets sh: later callers set a new watch. s.mu must be held.
func (s *watchSet) forgetLocked(sh *sharedWatch) {
	if s.m[sh.key] == sh {
		delete(s.m, sh.key)
	}
	delete(s.all, sh)
}

// fire records sh's event, received from its channel, and forgets the
// server watch: later callers set a new one.
func (s *watchSet) fire(sh *sharedWatch, ev zk.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isClosedChan(sh.fired) {
		return
	}
	s.forgetLocked(sh)
	sh.subs = map[*Watch]struct{}{} // a Stop from now on finds nothing to remove
	sh.ev = ev
	close(sh.fired)
}

// GetWatch is GetW whose watch can be given up (see Watch): callers that
// watch the same node on the same connection, with no reconnect between
// them, share one server watch. A call abandoned because ctx ended leaves
// no watch behind, on the server or here.
func (c *Client) GetWatch(ctx context.Context, path string) ([]byte, *zk.Stat, *Watch, error) {
	r, w, err := c.watchRead(ctx, path, watchData)
	return r.data, r.st, w, aclErr("get", path, err)
}

// ExistsWatch is ExistsW whose watch can be given up (see Watch). It
// leaves a watch whether or not the node exists: it fires when the node
// is created, changes or is deleted.
func (c *Client) ExistsWatch(ctx context.Context, path string) (bool, *zk.Stat, *Watch, error) {
	r, w, err := c.watchRead(ctx, path, watchExists)
	if err != nil {
		return false, nil, nil, aclErr("exists", path, err)
	}
	return r.ok, r.st, w, nil
}

// ChildrenWatch is ChildrenW whose watch can be given up (see Watch): it
// fires when the node's children change or the node is deleted.
func (c *Client) ChildrenWatch(ctx context.Context, path string) ([]string, *zk.Stat, *Watch, error) {
	r, w, err := c.watchRead(ctx, path, watchChildren)
	return r.kids, r.st, w, aclErr("children", path, err)
}

// watchRead reads path as kind reads it, with a shared watch.
func (c *Client) watchRead(ctx context.Context, path string, kind watchKind) (watchRead, *Watch, error) {
	full, err := c.abs(path)
	if err != nil {
		return watchRead{}, nil, err
	}
	var out watchRead
	var w *Watch
	err = c.Do(ctx, func(ctx context.Context) error {
		conn, up, err := c.connUp(ctx)
		if err != nil {
			return err
		}
		r, wt, err := c.watches.getWatch(ctx, conn, up, full, kind)
		out, w = r, wt
		return err
	})
	if err != nil {
		return watchRead{}, nil, err // a read that failed set no watch
	}
	return out, w, nil
}

// DataWatches reports the one-shot watches that GetWatch, ExistsWatch
// and ChildrenWatch have set and that have neither fired nor been given
// up, and how many Watches still wait on them. (Two callers that watch one
// node at the same instant may each set one; later callers join.) A
// waiter that gave up has stopped its Watch, so under a long-held lock the
// first stays at one per watched node and the second at the number of
// live waiters, and both fall to zero once every waiter has gone.
func (c *Client) DataWatches() (watches, waiting int) {
	if c == nil {
		return 0, 0
	}
	c.watches.mu.Lock()
	defer c.watches.mu.Unlock()
	for sh := range c.watches.all {
		waiting += len(sh.subs)
	}
	return len(c.watches.all), waiting
}
