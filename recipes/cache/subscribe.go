package cache

import (
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// Events returns a channel that receives every event from now on, in order,
// none dropped however slowly it is read (each subscriber has its own
// unbounded queue), and a cancel function. Subscribe before Start to see the
// initial load's Created events and Initialized. The channel is closed by
// cancel, by Close, and when the client closes. Calling cancel more than once
// is harmless.
func (c *Cache) Events() (<-chan Event, func()) {
	if c == nil || c.cl == nil {
		return pubsub.Closed[Event](), func() {}
	}
	return c.hub.Subscribe()
}

// publishLocked hands ev to every subscriber; c.mu is held for writing, so
// readers never see a view older than an event delivered.
func (c *Cache) publishLocked(ev Event) {
	access.CacheEvent(c.cl, c.path, ev.Type.String())
	c.hub.Publish(ev)
}
