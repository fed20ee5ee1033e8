package client

import (
	"context"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Watch is a data watch on one node that its holder can give up. It gets
// one event, as GetW's channel does: the node changed or was deleted, or
// (zk.EventNotWatching) the watch was dropped with its session or
// connection. Stop gives it up: the channel then gets nothing more.
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
// Each shared watch has a goroutine that hands its event on; it ends when
// the event comes, at the latest when go-zookeeper drops its watches
// (shortly after Close).
type Watch struct {
	ch  chan zk.Event
	set *watchSet
	sh  *sharedWatch
}

// Events returns the channel that gets the watch's one event.
func (w *Watch) Events() <-chan zk.Event { return w.ch }

// Stop gives the watch up. It is idempotent and safe on a nil Watch.
func (w *Watch) Stop() {
	if w == nil || w.set == nil {
		return
	}
	w.set.mu.Lock()
	delete(w.sh.subs, w)
	w.set.mu.Unlock()
}

// watchKey names a shared watch: one node, on one go-zookeeper
// connection, in one up period of it (the client's upCh; go-zookeeper keeps
// its Conn across reconnects and even across sessions).
type watchKey struct {
	conn *zk.Conn
	up   <-chan struct{}
	path string
}

// sharedWatch is one server watch and the Watches it feeds.
type sharedWatch struct {
	subs map[*Watch]struct{}
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
func (s *watchSet) getWatch(conn *zk.Conn, up <-chan struct{}, full string) ([]byte, *zk.Stat, *Watch, error) {
	key := watchKey{conn, up, full}
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[watchKey]*sharedWatch)
	}
	if sh := s.m[key]; sh != nil {
		w := s.joinLocked(sh)
		s.mu.Unlock()
		data, st, err := conn.Get(full)
		if err != nil {
			w.Stop()
			return nil, nil, nil, err
		}
		return data, st, w, nil
	}
	s.mu.Unlock()
	data, st, ch, err := conn.GetW(full)
	if err != nil {
		return nil, nil, nil, err
	}
	sh := &sharedWatch{subs: make(map[*Watch]struct{})}
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
	go s.forward(key, sh, ch)
	return data, st, w, nil
}

// joinLocked adds a new Watch to sh. s.mu must be held.
func (s *watchSet) joinLocked(sh *sharedWatch) *Watch {
	w := &Watch{ch: make(chan zk.Event, 1), set: s, sh: sh}
	sh.subs[w] = struct{}{}
	return w
}

// forward waits for the server watch's event and hands it to every Watch
// still subscribed. It ends when go-zookeeper fires or drops the watch
// (at the latest when the connection closes).
func (s *watchSet) forward(key watchKey, sh *sharedWatch, ch <-chan zk.Event) {
	ev, ok := <-ch
	if !ok {
		ev = zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: key.path, Err: zk.ErrClosing}
	}
	s.mu.Lock()
	if s.m[key] == sh {
		delete(s.m, key)
	}
	delete(s.all, sh)
	subs := sh.subs
	sh.subs = map[*Watch]struct{}{} // a Stop from now on finds nothing to remove
	s.mu.Unlock()
	for w := range subs {
		w.ch <- ev
		close(w.ch)
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
		r, err := await(ctx, c, func() (reply, error) {
			data, st, w, err := c.watches.getWatch(conn, up, full)
			return reply{data, st, w}, err
		}, func(r reply, _ error) { r.w.Stop() })
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
