package client

import (
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// nodeSub is one NodeEvents subscriber: the subtree it asked for, as an
// absolute path, and its queue.
type nodeSub struct {
	root string
	sub  *pubsub.Sub[zk.Event]
}

// wants reports whether full, an absolute path, is root or under it.
func (s *nodeSub) wants(full string) bool {
	switch {
	case s.root == "/":
		return true
	case full == s.root:
		return true
	default:
		return strings.HasPrefix(full, s.root) && len(full) > len(s.root) && full[len(s.root)] == '/'
	}
}

// NodeEvents returns a channel that receives every watch notification the
// client gets for root or a node under it (zk.EventNodeCreated,
// EventNodeDeleted, EventNodeDataChanged, EventNodeChildrenChanged), with
// Path relative to the namespace, in the order the server sent them and none
// dropped (each subscriber has its own unbounded queue), and a cancel
// function. The channel is closed by cancel or by Close.
//
// It carries the notifications of every watch set through this client: GetW,
// ExistsW, ChildrenW, GetWatch and the raw Conn alike, including those that
// the connection set again after a reconnect. So a watcher of many nodes can set
// its watches with those calls, ignore the channels they return and read this
// one stream, in the server's order, without a goroutine per watch. A
// notification is sent to the client before any reply that shows the change
// it announces. Session events are not carried: Subscribe tells when watches
// are gone (StateLost: they ended with their session).
func (c *Client) NodeEvents(root string) (<-chan zk.Event, func(), error) {
	full, err := c.abs(root)
	if err != nil {
		return nil, nil, err
	}
	s := &nodeSub{root: full, sub: pubsub.New[zk.Event]()}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, nil, errClosed
	}
	if c.nodeSubs == nil {
		c.nodeSubs = make(map[*nodeSub]struct{})
	}
	c.nodeSubs[s] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		s.sub.Run()
	}()
	cancel := func() {
		c.mu.Lock()
		delete(c.nodeSubs, s)
		c.mu.Unlock()
		s.sub.Stop()
	}
	return s.sub.Out(), cancel, nil
}

// onNodeEvent hands a watch notification of the current connection to the
// NodeEvents subscribers that want it. It runs on the connection's receive
// goroutine, before the replies that follow the notification are read.
func (c *Client) onNodeEvent(gen uint64, ev zk.Event, zxid int64) {
	switch ev.Type {
	case zk.EventNodeCreated, zk.EventNodeDeleted, zk.EventNodeDataChanged, zk.EventNodeChildrenChanged:
	default:
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || gen != c.gen {
		return
	}
	c.onPersistentLocked(ev, zxid)
	var rel string
	for s := range c.nodeSubs {
		if !s.wants(ev.Path) {
			continue
		}
		if rel == "" {
			rel = c.rel(ev.Path)
		}
		out := ev
		out.Path = rel
		s.sub.Push(out)
	}
}
