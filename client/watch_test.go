package client

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestWatchZeroAndNil: Stop on a nil or zero Watch does nothing.
func TestWatchZeroAndNil(t *testing.T) {
	var w *Watch
	w.Stop()
	(&Watch{}).Stop()
	var c *Client
	if n, m := c.DataWatches(); n != 0 || m != 0 {
		t.Fatal("a nil client holds watches")
	}
}

// TestWatchFansOut: one server event reaches every subscriber still there,
// once, whichever of them receives it from go-zookeeper's channel, and the
// shared entry is gone; a stopped one gets nothing; Events works too.
func TestWatchFansOut(t *testing.T) {
	s := &watchSet{m: map[watchKey]*sharedWatch{}, all: map[*sharedWatch]struct{}{}}
	key := watchKey{nil, nil, "/a", watchData}
	raw := make(chan zk.Event, 1)
	sh := &sharedWatch{key: key, raw: raw, fired: make(chan struct{}), subs: map[*Watch]struct{}{}}
	s.m[key], s.all[sh] = sh, struct{}{}
	s.mu.Lock()
	a, b, c, gone := s.joinLocked(sh), s.joinLocked(sh), s.joinLocked(sh), s.joinLocked(sh)
	s.mu.Unlock()
	goneEvents := gone.Events()
	gone.Stop()
	cEvents := c.Events()
	raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
	close(raw)
	got := make(chan zk.Event, 2)
	for _, w := range []*Watch{a, b} {
		go func() {
			ev, ok := <-w.raw()
			got <- w.resolve(ev, ok)
		}()
	}
	for range 2 {
		if ev := <-got; ev.Type != zk.EventNodeDeleted {
			t.Fatalf("event %v, want EventNodeDeleted", ev)
		}
	}
	if ev, ok := <-cEvents; !ok || ev.Type != zk.EventNodeDeleted {
		t.Fatalf("Events: %v %v, want EventNodeDeleted", ev, ok)
	}
	if _, ok := <-cEvents; ok {
		t.Fatal("Events: a second event, or the channel still open")
	}
	select {
	case ev := <-goneEvents:
		t.Fatalf("a stopped watch got %v", ev)
	default:
	}
	if n, m := len(s.m), len(s.all); n != 0 || m != 0 {
		t.Fatalf("%d shared watches (%d unfired) left after the event", n, m)
	}
	a.Stop() // after the event: nothing to remove, no panic
}

// TestWatchStopForgets: a shared watch whose every caller gave up before
// it fired is forgotten at once (no goroutine waits for its event), and a
// later event on its channel changes nothing.
func TestWatchStopForgets(t *testing.T) {
	s := &watchSet{m: map[watchKey]*sharedWatch{}, all: map[*sharedWatch]struct{}{}}
	key := watchKey{nil, nil, "/a", watchData}
	raw := make(chan zk.Event, 1)
	sh := &sharedWatch{key: key, raw: raw, fired: make(chan struct{}), subs: map[*Watch]struct{}{}}
	s.m[key], s.all[sh] = sh, struct{}{}
	s.mu.Lock()
	a, b := s.joinLocked(sh), s.joinLocked(sh)
	s.mu.Unlock()
	a.Stop()
	if n, m := len(s.m), len(s.all); n != 1 || m != 1 {
		t.Fatalf("%d shared watches (%d unfired) after one of two callers gave up, want 1 (1)", n, m)
	}
	b.Stop()
	b.Stop()
	if n, m := len(s.m), len(s.all); n != 0 || m != 0 {
		t.Fatalf("%d shared watches (%d unfired) left after every caller gave up", n, m)
	}
	raw <- zk.Event{Type: zk.EventNodeDataChanged, Path: "/a"}
	close(raw)
	if isClosedChan(sh.fired) {
		t.Fatal("a given-up watch recorded an event")
	}
}
