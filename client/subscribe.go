package client

import (
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// Subscribe returns a channel that receives every state transition from now
// on, in order, none dropped however slowly it is read (each subscriber has
// its own unbounded queue), and a cancel function. The channel is closed by
// cancel or by Close. Calling cancel more than once is harmless.
func (c *Client) Subscribe() (<-chan StateChange, func()) {
	if c == nil || c.closedCh == nil {
		return pubsub.Closed[StateChange](), func() {}
	}
	s := pubsub.New[StateChange]()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return pubsub.Closed[StateChange](), func() {}
	}
	if c.subs == nil {
		c.subs = make(map[*pubsub.Sub[StateChange]]struct{})
	}
	c.subs[s] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		s.Run()
	}()
	cancel := func() {
		c.mu.Lock()
		delete(c.subs, s)
		c.mu.Unlock()
		s.Stop()
	}
	return s.Out(), cancel
}
