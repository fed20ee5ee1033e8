package discovery

import (
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// Events returns a channel that receives every event of the cache from now
// on, in order, none dropped however slowly it is read (each subscriber
// has its own unbounded queue), and a cancel function. Subscribe before
// Start to see the initial load. The channel is closed by cancel, by
// Close, and when the client closes. Calling cancel more than once is
// harmless.
func (ch *Cache) Events() (<-chan Event, func()) {
	s := ch.subscribe()
	if s == nil {
		return pubsub.Closed[Event](), func() {}
	}
	return s.Out(), func() { ch.unsubscribe(s) }
}

func (ch *Cache) subscribe() *pubsub.Sub[Event] {
	if ch == nil || ch.cc == nil {
		return nil
	}
	gone := clientClosed(ch.d.c)
	s := pubsub.New[Event]()
	ch.mu.Lock()
	if gone || ch.phase == closed || isDone(ch.doneCh) {
		ch.mu.Unlock()
		return nil
	}
	if ch.subs == nil {
		ch.subs = make(map[*pubsub.Sub[Event]]struct{})
	}
	ch.subs[s] = struct{}{}
	ch.wg.Add(1)
	ch.mu.Unlock()
	go func() {
		defer ch.wg.Done()
		s.Run()
	}()
	return s
}

func (ch *Cache) unsubscribe(s *pubsub.Sub[Event]) {
	ch.mu.Lock()
	delete(ch.subs, s)
	ch.mu.Unlock()
	s.Stop()
}

// publishLocked hands ev to every subscriber; ch.mu is held for writing,
// so readers never see a view older than an event delivered.
func (ch *Cache) publishLocked(ev Event) {
	for s := range ch.subs {
		s.Push(ev)
	}
}

// stopSubscribers closes every subscription (the pump ended).
func (ch *Cache) stopSubscribers() {
	ch.mu.Lock()
	subs := ch.subs
	ch.subs = nil
	ch.mu.Unlock()
	for s := range subs {
		s.Stop()
	}
}
