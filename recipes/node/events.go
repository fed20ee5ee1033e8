package node

import (
	"github.com/go-zkrecipes/zkrecipes/internal/enum"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// EventType says what happened to a Node's node.
type EventType int

const (
	// Created: the handle made the node, the first time or again (after a
	// session loss, a delete, a server restart). Path is its path, which
	// may be new (protected and sequential names).
	Created EventType = iota + 1
	// Adopted: the handle found a node it did not make at its path (made by
	// another process, or a persistent one from before) and took it over as
	// Curator does: it wrote its data there and watches it.
	Adopted
	// Gone: the node is gone, or going: it was deleted, or the session that
	// owns it ended. The handle makes it again as soon as it can.
	Gone
)

// String names the event type ("Created", "Adopted", "Gone").
func (t EventType) String() string {
	return enum.Name(t, Created, "EventType", "Created", "Adopted", "Gone")
}

// Event is one change of a Node's node, as Events delivers it.
type Event struct {
	// Type says what happened.
	Type EventType
	// Path is the node's path, relative to the client's namespace.
	Path string
	// Session is the ephemeral owner of the node: the handle's session for
	// a node it made, another session for an adopted ephemeral node, 0 for
	// a persistent one.
	Session int64
}

// Events returns a channel that receives every Event of the node from
// now on, in order and none dropped however slowly it is read (each
// subscriber has its own unbounded queue), and a function that ends the
// subscription. When the node is there already, the first Event is the
// one that put it there (Created or Adopted), so a subscriber never misses
// the current path. The channel is closed by cancel or by Close; after
// Close, and for a zero Node, Events returns a closed channel. Calling
// cancel more than once is harmless.
func (n *Node) Events() (<-chan Event, func()) {
	if n == nil || n.cl == nil {
		return pubsub.Closed[Event](), func() {}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.present {
		return n.hub.Subscribe(n.last)
	}
	return n.hub.Subscribe()
}

// publishLocked records ev as the node's state and hands it to every
// subscriber. n.mu must be held.
func (n *Node) publishLocked(ev Event) {
	n.present = ev.Type != Gone
	n.last = ev
	n.hub.Publish(ev)
}
