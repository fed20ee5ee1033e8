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
	s := c.subscribe()
	if s == nil {
		return pubsub.Closed[Event](), func() {}
	}
	return s.Out(), func() { c.unsubscribe(s) }
}

// Listen calls f with every event from now on, in order, on a goroutine of
// its own (one per listener), and returns a function that removes it. A slow
// f delays only its own later calls. f must return: Close waits for a call
// that is running, so f must not call Close itself, which would wait for f
// forever (from a listener, close with go c.Close()). After Close it
// returns zkrecipes.ErrClosed; a nil f is an error wrapping zkrecipes.ErrInvalidArgument.
func (c *Cache) Listen(f func(Event)) (remove func(), err error) {
	if c == nil || c.cl == nil {
		return nil, errZero()
	}
	if f == nil {
		return nil, invalidArg("nil listener")
	}
	s := c.subscribe()
	if s == nil {
		return nil, c.closedErr()
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for ev := range s.Out() {
			f(ev)
		}
	}()
	return func() { c.unsubscribe(s) }, nil
}

// subscribe registers a queue and starts its pump, or returns nil when the
// cache is closed (or zero).
func (c *Cache) subscribe() *pubsub.Sub[Event] {
	if c == nil || c.cl == nil {
		return nil
	}
	s := pubsub.New[Event]()
	c.mu.Lock()
	if c.phase == closed || isDone(c.doneCh) {
		c.mu.Unlock()
		return nil
	}
	if c.subs == nil {
		c.subs = make(map[*pubsub.Sub[Event]]struct{})
	}
	c.subs[s] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		s.Run()
	}()
	return s
}

func (c *Cache) unsubscribe(s *pubsub.Sub[Event]) {
	c.mu.Lock()
	delete(c.subs, s)
	c.mu.Unlock()
	s.Stop()
}

// publishLocked hands ev to every subscriber; c.mu is held for writing, so
// readers never see a view older than an event delivered.
func (c *Cache) publishLocked(ev Event) {
	access.CacheEvent(c.cl, c.path, ev.Type.String())
	for s := range c.subs {
		s.Push(ev)
	}
}

// stopSubscribers closes every subscription (the loop ended with the client).
func (c *Cache) stopSubscribers() {
	c.mu.Lock()
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	for s := range subs {
		s.Stop()
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
