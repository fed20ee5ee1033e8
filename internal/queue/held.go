package queue

import (
	"context"
	"path"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Held is a node that holds. Its Lost channel closes when holding can no
// longer be guaranteed: the connection was suspended (unless the request
// asked for LostOnSessionLossOnly), the session was lost, the node was
// deleted under us, the client closed, or the holder released.
type Held struct {
	c    *client.Client
	node client.ProtectedNode
	name string
	czx  int64

	lost     chan struct{}
	lostOnce sync.Once
	released chan struct{}
	relOnce  sync.Once
	cancel   context.CancelFunc // ends the monitor's I/O on release
	done     chan struct{}      // closed when the monitor has returned
}

// hold turns the waiter into a holder and starts its monitor. disc is the
// Disconnected channel taken before the listing or event that granted it.
func (w *waiter) hold(disc <-chan struct{}) *Held {
	h := &Held{
		c:        w.q.c,
		node:     w.node,
		name:     w.name,
		czx:      w.own.stat.Czxid,
		lost:     make(chan struct{}),
		released: make(chan struct{}),
		done:     make(chan struct{}),
	}
	if w.req.LostOnSessionLossOnly {
		disc = nil // a nil channel never fires in a select
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go h.monitor(ctx, disc, w.own.ch, w.req.OnRevoke)
	return h
}

// Path is the held node's path (relative to the client's namespace).
func (h *Held) Path() string { return h.node.Path }

// Name is the held node's name.
func (h *Held) Name() string { return h.name }

// Czxid is the zxid that created the held node: the fencing token. It grows
// strictly across successive holders of a directory, even across the
// deletion and re-creation of the directory, since zxids never repeat.
func (h *Held) Czxid() int64 { return h.czx }

// Session is the session the held node belongs to.
func (h *Held) Session() *client.Session { return h.node.Session }

// Lost is closed once holding can no longer be guaranteed.
func (h *Held) Lost() <-chan struct{} { return h.lost }

func (h *Held) markLost() { h.lostOnce.Do(func() { close(h.lost) }) }

func (h *Held) monitor(ctx context.Context, disc <-chan struct{}, own <-chan zk.Event, onRevoke func()) {
	defer close(h.done)
	defer h.markLost()
	sess := h.node.Session
	for {
		select {
		case <-h.released:
			return
		case <-sess.Done():
			return
		case <-disc:
			return
		case ev := <-own:
			if ev.Type != zk.EventNodeDataChanged {
				return // deleted, or the watch ended with its connection
			}
			data, _, ch, err := h.c.GetW(ctx, h.node.Path)
			if err != nil {
				return
			}
			own = ch
			if string(data) == RevokeMarker && onRevoke != nil {
				go onRevoke()
			}
		}
	}
}

// Release deletes the held node. Lost closes. If the delete cannot be done
// within ctx, it goes on in the background, bounded by the node's session,
// so that a live session never keeps a released node.
func (h *Held) Release(ctx context.Context) error {
	h.relOnce.Do(func() {
		close(h.released)
		h.cancel()
	})
	<-h.done
	err := h.c.DeleteIfExists(ctx, h.node.Path)
	if err == nil {
		return nil
	}
	if h.node.Session.Err() == nil && !isClosed(h.c.Disconnected()) && ctx.Err() == nil {
		return err // a final error with a live connection: nothing to retry
	}
	go deleteNode(h.c, h.node)
	return err
}

// Participant is one contender in a queue directory.
type Participant struct {
	// Name is the node's name; Path its path.
	Name, Path string
	// Marker is its lock name ("lock-", "__READ__", ...).
	Marker string
	// Data is the node's data (Curator writes the holder's address).
	Data []byte
	// Czxid is the node's creation zxid.
	Czxid int64
}

// Participants lists the contenders in queue order, holder(s) first. Nodes
// that vanish while being read are left out.
func (q *Queue) Participants(ctx context.Context) ([]Participant, error) {
	kids, _, err := q.c.Children(ctx, q.dir)
	if err == zk.ErrNoNode {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Participant
	for _, n := range Sorted(kids, q.markers) {
		p := path.Join(q.dir, n.Name)
		data, st, err := q.c.Get(ctx, p)
		if err == zk.ErrNoNode {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Participant{Name: n.Name, Path: p, Marker: n.Marker, Data: data, Czxid: st.Czxid})
	}
	return out, nil
}

// Revoke asks the holder of the node at nodePath to release, by writing
// RevokeMarker into it (Curator's revocation protocol).
func Revoke(ctx context.Context, c *client.Client, nodePath string) error {
	_, err := c.Set(ctx, nodePath, []byte(RevokeMarker), -1)
	return err
}
