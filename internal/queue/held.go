package queue

import (
	"context"
	"path"
	"sync"
	"time"

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

	stat  chan struct{} // closed once czx is known (or never will be)
	czx   int64
	want  chan struct{} // closed by the first Czxid: read the node now
	wantO sync.Once
	lost  chan struct{}
	lostO sync.Once

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
		stat:     make(chan struct{}),
		want:     make(chan struct{}),
		lost:     make(chan struct{}),
		released: make(chan struct{}),
		done:     make(chan struct{}),
	}
	if w.req.LostOnSessionLossOnly {
		disc = nil // a nil channel never fires in a select
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go h.monitor(ctx, disc, w.req.OnRevoke)
	return h
}

// Path is the held node's path (relative to the client's namespace).
func (h *Held) Path() string { return h.node.Path }

// Name is the held node's name.
func (h *Held) Name() string { return h.name }

// Czxid is the zxid that created the held node: the fencing token. It grows
// strictly across successive holders of a directory, even across the
// deletion and re-creation of the directory, since zxids never repeat.
//
// ZooKeeper's create does not return it; the holder's monitor reads it with
// the watch it sets on its own node (see readDelay), off the acquire path.
// Czxid asks for that read at once and waits for it: at most one round
// trip, paid by whoever asks. It is 0 if the holding was lost or released
// before the node could be read.
func (h *Held) Czxid() int64 {
	h.wantO.Do(func() { close(h.want) })
	<-h.stat
	return h.czx
}

// readDelay is how long a new holder's monitor waits before it reads its own
// node (to learn the fencing token and leave the watch that reports the
// node's deletion or revocation), unless Czxid asks sooner. A holding
// released within it never pays for the read: that read would otherwise sit
// in front of the release's delete and cost a short critical section about
// a tenth of its cycle. Session loss and suspension are watched from the
// first instant regardless; a deletion under the holder in the meantime is
// found by the read itself.
const readDelay = 2 * time.Millisecond

// Session is the session the held node belongs to.
func (h *Held) Session() *client.Session { return h.node.Session }

// Lost is closed once holding can no longer be guaranteed.
func (h *Held) Lost() <-chan struct{} { return h.lost }

func (h *Held) markLost() { h.lostO.Do(func() { close(h.lost) }) }

// monitor watches the held node (deleted, or revoked through its data), the
// session and, unless disc is nil, the connection, and closes Lost. Reads of
// the node run beside the loop, so a suspension is noticed at once even while
// a read is being retried.
func (h *Held) monitor(ctx context.Context, disc <-chan struct{}, onRevoke func()) {
	defer close(h.done)
	defer h.markLost()
	why := ""
	defer func() {
		if why != "" {
			h.c.Logger().Info("lock holding lost", "node", h.node.Path, "why", why)
		}
	}()
	statOnce := sync.Once{}
	defer statOnce.Do(func() { close(h.stat) })
	sess := h.node.Session
	var own <-chan zk.Event
	delay := time.NewTimer(readDelay)
	defer delay.Stop()
	start, want := delay.C, h.want // until the first read starts
	var reading <-chan readResult
	for {
		select {
		case <-h.released:
			return
		case <-sess.Done():
			why = "session ended"
			return
		case <-disc:
			why = "connection suspended"
			return
		case <-start:
			start, want, reading = nil, nil, h.read(ctx)
		case <-want:
			start, want, reading = nil, nil, h.read(ctx)
		case r := <-reading:
			reading = nil
			if r.err != nil {
				why = "watching the node failed: " + r.err.Error()
				return // deleted under us, or no way to know: lost
			}
			statOnce.Do(func() {
				h.czx = r.stat.Czxid
				close(h.stat)
			})
			if r.stat.EphemeralOwner != sess.ID() {
				why = "the node belongs to another session"
				return // not the session we watch: do not vouch for it
			}
			own = r.ch
			if string(r.data) == RevokeMarker && onRevoke != nil {
				go onRevoke()
			}
		case ev := <-own:
			if ev.Type != zk.EventNodeDataChanged {
				why = "node event " + ev.Type.String()
				return // deleted, or the watch ended with its connection
			}
			own, reading = nil, h.read(ctx)
		}
	}
}

type readResult struct {
	data []byte
	stat *zk.Stat
	ch   <-chan zk.Event
	err  error
}

// read reads the held node and leaves a data watch on it, on its own
// goroutine (which ends with the read: ctx is cancelled on release).
func (h *Held) read(ctx context.Context) <-chan readResult {
	out := make(chan readResult, 1)
	go func() {
		data, st, ch, err := h.c.GetW(ctx, h.node.Path)
		out <- readResult{data: data, stat: st, ch: ch, err: err}
	}()
	return out
}

// Release deletes the held node. Lost closes. If the delete cannot be done
// within ctx, it goes on in the background, bounded by the node's session,
// so that a live session never keeps a released node.
func (h *Held) Release(ctx context.Context) error {
	h.relOnce.Do(func() {
		close(h.released)
		h.cancel()
	})
	err := h.c.DeleteIfExists(ctx, h.node.Path)
	<-h.done
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
