package client

import (
	"context"
	"sync"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
)

// Watch is a data watch on one node that its holder can give up. It gets
// one event, as GetW's channel does: the node changed or was deleted, or
// (zk.EventNotWatching) the watch was dropped because its session or
// connection ended. Stop gives it up: the watch then delivers nothing more.
//
// Why it exists: go-zookeeper keeps every watch a caller asks for until the
// server fires it; a waiter that gives up (a Lock whose ctx ended) cannot
// take its watch back. Against a node that lives long, such as a lock held
// for hours, every timed-out Lock would leave one more entry in
// go-zookeeper's watcher table. GetWatch instead shares one server watch
// among every caller watching the same node on the same connection while
// it stays up, and Stop drops the caller from it, so the table holds one
// entry per watched node whatever the number of callers that came and
// went. After a reconnect, callers set a fresh watch rather than join one
// that go-zookeeper re-registered: each then stands on its own request.
//
// The callers of one server watch all receive from go-zookeeper's own
// channel (C), which delivers the event to one of them and then closes;
// resolve gives each of them the event. So the event reaches a waiter with
// no goroutine in between. A server watch whose last caller gave up before
// it fired has a goroutine that waits for its event, to forget it then.
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
// the last caller of a server watch that has not fired gives up, a
// goroutine waits for the event to forget the server watch then.
func (w *Watch) Stop() {
	if w == nil || w.set == nil {
		return
	}
	s := w.set
	s.mu.Lock()
	_, was := w.sh.subs[w]
	delete(w.sh.subs, w)
	drain := was && len(w.sh.subs) == 0 && !w.sh.draining // was: not fired (fire empties subs)
	if drain {
		w.sh.draining = true
	}
	if w.stopped != nil && !w.gaveUp {
		close(w.stopped)
	}
	w.gaveUp = true
	s.mu.Unlock()
	if drain {
		go s.drain(w.sh)
	}
}

// watchKey names a shared watch: one node, on one go-zookeeper
// connection, in one up period of it (the client's upCh; go-zookeeper keeps
// its Conn across reconnects and even across sessions).
type watchKey struct {
	conn *wire.Conn
	up   <-chan struct{}
	path string
}

// sharedWatch is one server watch and the Watches it feeds.
type sharedWatch struct {
	key   watchKey
	raw   <-chan zk.Event // go-zookeeper's: one event, then closed
	fired chan struct{}   // closed once ev is set

	// guarded by watchSet.mu
	ev       zk.Event
	draining bool // a goroutine waits for the event (no caller left)
	subs     map[*Watch]struct{}
}

// watchSet holds a client's shared data watches.
type watchSet struct {
	mu  sync.Mutex
	m   map[watchKey]*sharedWatch // the ones callers may join
	all map[*sharedWatch]struct{} // every one not fired yet (two callers may each set one at once)
}

// getWatch reads the node at full on conn and subscribes to its shared
// data watch, setting the server watch when there is none to join. A
// caller that joins reads without setting a watch: the shared one was set
// before its read, so any change after the read still fires it (a change
// between the two gives an event the read already saw, which is harmless).
func (s *watchSet) getWatch(ctx context.Context, conn *wire.Conn, up <-chan struct{}, full string) ([]byte, *zk.Stat, *Watch, error) {
	key := watchKey{conn, up, full}
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[watchKey]*sharedWatch)
	}
	if sh := s.m[key]; sh != nil {
		w := s.joinLocked(sh)
		s.mu.Unlock()
		data, st, err := conn.Get(ctx, full)
		if err != nil {
			w.Stop()
			return nil, nil, nil, err
		}
		return data, st, w, nil
	}
	s.mu.Unlock()
	data, st, ch, err := conn.GetW(ctx, full)
	if err != nil {
		return nil, nil, nil, err
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
	return data, st, w, nil
}

// joinLocked adds a new Watch to sh. s.mu must be held.
func (s *watchSet) joinLocked(sh *sharedWatch) *Watch {
	w := &Watch{set: s, sh: sh}
	sh.subs[w] = struct{}{}
	return w
}

// fire records sh's event, received from its channel, and forgets the
// server watch: later callers set a new one.
func (s *watchSet) fire(sh *sharedWatch, ev zk.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if isClosedChan(sh.fired) {
		return
	}
	if s.m[sh.key] == sh {
		delete(s.m, sh.key)
	}
	delete(s.all, sh)
	sh.subs = map[*Watch]struct{}{} // a Stop from now on finds nothing to remove
	sh.ev = ev
	close(sh.fired)
}

// drain waits for the event of a server watch that no caller waits for
// any more, and forgets it then. It ends when go-zookeeper fires or drops
// the watch (at the latest when the connection closes).
func (s *watchSet) drain(sh *sharedWatch) {
	select {
	case ev, ok := <-sh.raw:
		if ok {
			s.fire(sh, ev)
		}
	case <-sh.fired:
	}
}

// GetWatch is GetW whose watch can be given up (see Watch): callers that
// watch the same node on the same connection, with no reconnect between
// them, share one server watch. A call
// abandoned because ctx ended leaves no subscription behind.
func (c *Client) GetWatch(ctx context.Context, path string) ([]byte, *zk.Stat, *Watch, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, nil, nil, err
	}
	type reply struct {
		data []byte
		st   *zk.Stat
		w    *Watch
	}
	var out reply
	err = c.Do(ctx, func(ctx context.Context) error {
		conn, up, err := c.connUp(ctx)
		if err != nil {
			return err
		}
		// The request returns as soon as ctx ends; a watch the server set
		// for it then fires into a channel no one reads (see drain).
		data, st, w, err := c.watches.getWatch(ctx, conn, up, full)
		r := reply{data, st, w}
		out = r
		return err
	})
	return out.data, out.st, out.w, err
}

// DataWatches reports the server data watches GetWatch has set that have
// not fired yet, and how many Watches still wait on them. (Two callers
// that watch one node at the same instant may each set one; later callers
// join.) A waiter that
// gave up has stopped its Watch, so under a long-held lock the first stays
// at one per watched node and the second at the number of live waiters.
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
