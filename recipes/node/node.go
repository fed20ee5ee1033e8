package node

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/check"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// lifecycle of a Node.
type phase int

const (
	idle phase = iota
	started
	closed
)

// Node keeps one node in ZooKeeper: see the package documentation. A Node
// is safe for concurrent use. A zero or nil Node returns an error wrapping
// zkrecipes.ErrInvalidArgument from every method that returns an error.
type Node struct {
	cl   *client.Client
	base string // the path given to New
	o    options
	log  *slog.Logger

	stopCtx context.Context // cancelled by Close: ends the keeper's waits
	stop    context.CancelFunc
	poke    chan struct{} // wakes the keeper (SetData)
	done    chan struct{} // closed once the keeper has ended

	closeOnce   sync.Once
	closeResult error // the first Close's

	mu       sync.Mutex
	phase    phase
	data     []byte
	dataGen  uint64 // generation of data: one more at every SetData
	written  uint64 // the newest generation known to be in the node now (0: none)
	path     string // the node's actual path; "" before the first create
	present  bool   // the handle holds a node at path (last is Created or Adopted)
	last     Event
	created  bool          // the first create (or adoption) is done
	failure  error         // the last create or write the server refused for good
	failGen  uint64        // dataGen when failure happened
	changed  chan struct{} // closed and replaced on every change above
	closeCtx context.Context
	closeErr error             // the final delete's outcome
	early    bool              // the keeper ended because the client closed, before Close
	hub      pubsub.Hub[Event] // Events' subscribers
}

// New returns a handle on the node at path (relative to the client's
// namespace), to be made with data (nil is empty data) once Start is
// called. It does no I/O. A bad path is a *client.PathError (the root
// cannot be kept: a node needs a parent); a nil client, a nil or refused
// option an error wrapping zkrecipes.ErrInvalidArgument.
func New(c *client.Client, path string, data []byte, opts ...Option) (*Node, error) {
	if err := check.ClientPath(c, path, "the root cannot be kept: a node needs a parent and a name"); err != nil {
		return nil, err
	}
	o, err := apply(opts)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Node{
		cl:      c,
		base:    path,
		o:       o,
		log:     access.RecipeLogger(c, "node", path),
		stopCtx: ctx,
		stop:    stop,
		poke:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		data:    bytes.Clone(data),
		dataGen: 1,
		changed: make(chan struct{}),
	}, nil
}

// Start begins keeping the node and returns once it is first made (or
// adopted), or ctx ends. A goroutine of the handle's own creates the node
// as soon as the client has a session, and makes it again whenever it is
// gone, until Close; the client may still be connecting (or not yet
// started). When ctx ends first, Start returns ctx's error and the handle
// goes on trying in the background; it also returns the server's error
// when it refused the create for good (no permission, TTL nodes not
// enabled, an ephemeral parent, ...), and the handle keeps trying then too
// (at every reconnect and SetData, and every few seconds). Either way the
// handle is started: Close it. A second Start returns an error wrapping
// zkrecipes.ErrAlreadyStarted, a Start after Close one wrapping
// zkrecipes.ErrClosed.
func (n *Node) Start(ctx context.Context) error {
	if n == nil || n.cl == nil {
		return errZero()
	}
	if err := n.begin(); err != nil {
		return err
	}
	return n.waitFor(ctx, "start", func() (bool, error) {
		switch {
		case n.phase == closed:
			return true, life.Closed
		case n.created:
			return true, nil
		case n.failure != nil:
			return true, n.failure
		}
		return false, nil
	})
}

// begin starts the keeper, once.
func (n *Node) begin() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch n.phase {
	case closed:
		return fmt.Errorf("zkrecipes: start node %s: %w", n.base, life.Closed)
	case started:
		return fmt.Errorf("zkrecipes: start node %s: %w", n.base, life.AlreadyStarted)
	}
	n.phase = started
	// Subscribe before the first create, so that no state change after it
	// is missed.
	states, unsub := n.cl.Subscribe()
	k := &keeper{n: n, cl: n.cl, mine: make(map[int64]*client.Session)}
	go func() {
		defer close(n.done)
		defer unsub()
		k.run(states)
	}()
	return nil
}

// Path returns the node's actual path, relative to the client's namespace:
// with WithProtection or a sequential mode, the name the server or the
// protection gave it. It is "" before the first create and changes when
// the node is made again under a new name. After the node is gone it stays
// the last path until the node is made again.
func (n *Node) Path() string {
	if n == nil || n.cl == nil {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.path
}

// Data returns (a copy of) the latest data given to New or SetData: what
// the node holds, or will hold once the handle has written it.
func (n *Node) Data() []byte {
	if n == nil || n.cl == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return bytes.Clone(n.data)
}

// SetData makes data (nil is empty data) the node's data. The handle
// remembers it at once: every later create of the node uses it. If the
// handle holds the node now, SetData writes it through and returns once it
// is written, or once the node is found gone (it is then made again with
// this data), or with an error: ctx's (the data stays remembered, and is
// written as soon as the connection is back), the server's refusal (no
// permission), or zkrecipes.ErrClosed after Close. If the handle holds no node now
// (not started, not yet made, or gone), SetData returns nil at once. Unlike
// Curator's, it may be called before the first create.
//
// Writes are made in order: after SetData(a) and SetData(b), the node ends
// with b. A same-session reconnect does not write the data again unless a
// write may not have reached the server.
func (n *Node) SetData(ctx context.Context, data []byte) error {
	if n == nil || n.cl == nil {
		return errZero()
	}
	n.mu.Lock()
	if n.phase == closed {
		n.mu.Unlock()
		return fmt.Errorf("zkrecipes: set data of node %s: %w", n.base, life.Closed)
	}
	n.data = bytes.Clone(data)
	n.dataGen++
	gen := n.dataGen
	n.changedLocked()
	n.mu.Unlock()
	select {
	case n.poke <- struct{}{}:
	default:
	}
	return n.waitFor(ctx, "set data of", func() (bool, error) {
		switch {
		case n.phase == closed:
			return true, life.Closed
		case n.written >= gen, !n.present, n.phase == idle:
			return true, nil
		case n.failure != nil && n.failGen >= gen:
			return true, n.failure
		}
		return false, nil
	})
}

// waitFor calls ready with n.mu held, at once and after every change of
// the handle's state, until it reports true (then it returns its error,
// naming the node and what), or ctx ends.
func (n *Node) waitFor(ctx context.Context, what string, ready func() (bool, error)) error {
	for {
		n.mu.Lock()
		ok, err := ready()
		wake := n.changed
		n.mu.Unlock()
		if ok {
			if err != nil {
				return fmt.Errorf("zkrecipes: %s node %s: %w", what, n.base, err)
			}
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("zkrecipes: %s node %s: %w", what, n.base, ctx.Err())
		}
	}
}

// changedLocked wakes every waiter of waitFor. n.mu must be held.
func (n *Node) changedLocked() {
	close(n.changed)
	n.changed = make(chan struct{})
}

// Close stops keeping the node and deletes it with the client's
// guaranteed delete (client.DeleteGuaranteed, bound to the session that
// owns an ephemeral node): a TTL node's TouchName child first, then the
// node. It deletes whatever node the handle holds, an adopted one too, as
// Curator does. It waits, within ctx, for a create under way to end (so
// that a node it makes is deleted too) and for the delete; when ctx ends
// first, or the delete cannot finish (no connection), it returns an error
// wrapping zkrecipes.ErrDeletePending and the delete goes on in the background while
// the node's session lives. Subscribers' channels are closed, and waiting
// calls return zkrecipes.ErrClosed. A second Close waits for the first to
// end and returns the same result.
//
// Close never waits for a reconnect, whatever ctx allows, so that a
// deferred Close(context.Background()) cannot hold up a shutdown: without
// a connection it returns within about a second (the time the guaranteed
// delete gives a reconnect, see client.DeleteGuaranteed): nil when the
// node is gone with its session (the session was Lost: an ephemeral node
// has nothing left to wait for; one last try at deleting it, in case the
// server still holds that session, is made on the next session), else an
// error wrapping zkrecipes.ErrDeletePending.
// A connection that dies silently counts from when the client notices
// (at most 2/3 of the session timeout).
//
// Close the node before its client: once the client is closed nothing can
// be deleted (an ephemeral node goes with the session; a persistent one
// stays, and Close says so with an error wrapping zkrecipes.ErrClosed).
func (n *Node) Close(ctx context.Context) error {
	if n == nil || n.cl == nil {
		return errZero()
	}
	n.closeOnce.Do(func() { n.closeResult = n.close(ctx) })
	return n.closeResult
}

// close is the first Close.
func (n *Node) close(ctx context.Context) error {
	n.mu.Lock()
	wasStarted := n.phase == started
	n.phase = closed
	n.closeCtx = ctx
	n.hub.Close()
	n.changedLocked()
	n.mu.Unlock()
	n.stop()
	if !wasStarted {
		return nil // no keeper: nothing was made
	}

	select {
	case <-n.done:
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: close node %s: %w: %w", n.base, zkrecipes.ErrDeletePending, ctx.Err())
	}
	n.hub.Wait()
	n.mu.Lock()
	early, err, path := n.early, n.closeErr, n.path
	n.mu.Unlock()
	if early && !n.o.mode.ephemeral() && path != "" {
		// The keeper ended with the client: an ephemeral node went with the
		// session, a persistent one stays.
		err = fmt.Errorf("the node stays: %w", errs.ClientClosed)
	}
	if err != nil {
		return fmt.Errorf("zkrecipes: close node %s: %w", n.base, err)
	}
	return nil
}

// deleteNode deletes the node at path (nothing when path is ""), bound to
// sess: a TTL node's touch child first.
func (n *Node) deleteNode(ctx context.Context, path string, sess *client.Session) error {
	if path == "" {
		return nil
	}
	if n.o.ttlSet {
		if err := n.cl.DeleteGuaranteed(ctx, path+"/"+TouchName, nil); err != nil {
			return err
		}
	}
	return n.cl.DeleteGuaranteed(ctx, path, sess)
}

// Delays between the keeper's attempts that failed.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
)
