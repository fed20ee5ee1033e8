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
	if ch == nil || ch.cc == nil || clientClosed(ch.d.c) {
		return pubsub.Closed[Event](), func() {}
	}
	return ch.hub.Subscribe()
}

// publishLocked hands ev to every subscriber; ch.mu is held for writing,
// so readers never see a view older than an event delivered.
func (ch *Cache) publishLocked(ev Event) { ch.hub.Publish(ev) }
