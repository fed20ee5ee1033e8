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

// TestWatchForwardFansOut: one server event reaches every subscriber still
// there, once, and the shared entry is gone; a stopped one gets nothing.
func TestWatchForwardFansOut(t *testing.T) {
	s := &watchSet{m: map[watchKey]*sharedWatch{}}
	key := watchKey{nil, nil, "/a"}
	sh := &sharedWatch{subs: map[*Watch]struct{}{}}
	s.m[key] = sh
	s.mu.Lock()
	a, b, gone := s.joinLocked(sh), s.joinLocked(sh), s.joinLocked(sh)
	s.mu.Unlock()
	gone.Stop()
	ch := make(chan zk.Event, 1)
	ch <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
	close(ch)
	s.forward(key, sh, ch)
	for _, w := range []*Watch{a, b} {
		if ev, ok := <-w.Events(); !ok || ev.Type != zk.EventNodeDeleted {
			t.Fatalf("event %v %v, want EventNodeDeleted", ev, ok)
		}
		if _, ok := <-w.Events(); ok {
			t.Fatal("a second event, or the channel still open")
		}
	}
	select {
	case ev := <-gone.Events():
		t.Fatalf("a stopped watch got %v", ev)
	default:
	}
	if n := len(s.m); n != 0 {
		t.Fatalf("%d shared watches left after the event", n)
	}
	a.Stop() // after the event: nothing to remove, no panic
}
