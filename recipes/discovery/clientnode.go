package discovery

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// logger is what the package logs through (a *slog.Logger).
type logger interface {
	Warn(msg string, args ...any)
}

// clientNode keeps an instance's node on the server with the client's own
// calls: created (with container parents) at Start, made again with the
// latest data whenever it is found missing, after a deletion or once the
// session it lived in is gone, and deleted by Close with a guaranteed
// delete. A Dynamic instance's node is ephemeral at its path; one found
// there of another session (an earlier run's, not yet expired) is deleted
// and made again, as Curator's ServiceDiscovery does. A DynamicSequential
// one is a protected ephemeral sequential node, so that a create whose
// reply was lost never leaves a second instance. Static and Permanent are
// persistent nodes.
type clientNode struct {
	c          *client.Client
	path       string
	flags      int32
	ephemeral  bool
	sequential bool
	log        logger

	ctx     context.Context // ends at Close
	stop    context.CancelFunc
	kick    chan struct{} // wakes the loop
	created chan struct{} // closed after the first create
	done    chan struct{} // closed when the loop has returned

	mu      sync.Mutex
	data    []byte
	gen     uint64          // counts SetData calls
	written uint64          // the gen the node holds
	changed chan struct{}   // closed and replaced when written or actual change
	actual  string          // the node's path once created ("" before, and once it is found gone)
	sess    *client.Session // the session an ephemeral node lives in
	started bool
	once    sync.Once
}

func newClientNode(c *client.Client, path string, data []byte, t ServiceType, log logger) *clientNode {
	ctx, stop := context.WithCancel(context.Background())
	n := &clientNode{c: c, path: path, data: bytes.Clone(data), log: log, ctx: ctx, stop: stop,
		kick: make(chan struct{}, 1), created: make(chan struct{}), done: make(chan struct{}), changed: make(chan struct{})}
	switch t {
	case DynamicSequential:
		n.flags, n.ephemeral, n.sequential = zk.FlagEphemeralSequential, true, true
	case Static, Permanent:
	default:
		n.flags, n.ephemeral = zk.FlagEphemeral, true
	}
	return n
}

func (n *clientNode) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.started {
		return ErrAlreadyStarted
	}
	n.started = true
	go n.loop()
	return nil
}

func (n *clientNode) WaitForInitialCreate(ctx context.Context) error {
	select {
	case <-n.created:
		return nil
	case <-n.done:
		select {
		case <-n.created:
			return nil
		default:
		}
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetData keeps data for every later create and has the loop write it to
// the node; it waits until it is written, the node is found gone (it is
// made again with data), or ctx ends (the loop still writes it).
func (n *clientNode) SetData(ctx context.Context, data []byte) error {
	n.mu.Lock()
	n.data = bytes.Clone(data)
	n.gen++
	gen := n.gen
	n.mu.Unlock()
	n.wake()
	for {
		n.mu.Lock()
		done := n.written >= gen || n.actual == ""
		changed := n.changed
		n.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-n.done:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// noteLocked wakes SetData's waiters.
func (n *clientNode) noteLocked() {
	close(n.changed)
	n.changed = make(chan struct{})
}

func (n *clientNode) Close(ctx context.Context) error {
	n.mu.Lock()
	started := n.started
	n.started = true // no Start after Close
	n.mu.Unlock()
	n.stop()
	if started {
		<-n.done
	}
	n.mu.Lock()
	p, sess := n.actual, n.sess
	n.mu.Unlock()
	if p == "" {
		if n.sequential {
			return nil // CreateProtected removed what an abandoned create made
		}
		p = n.path // a create abandoned at Close may have made it
	}
	if !n.ephemeral {
		sess = nil
	}
	return n.c.DeleteGuaranteed(ctx, p, sess)
}

func (n *clientNode) wake() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// loop creates the node, then watches it, until Close.
func (n *clientNode) loop() {
	defer close(n.done)
	states, cancel := n.c.Subscribe()
	defer cancel()
	retry := 50 * time.Millisecond
	for n.ctx.Err() == nil {
		var later <-chan time.Time
		watch, err := n.ensure()
		switch {
		case errors.Is(err, ErrClosed) || n.ctx.Err() != nil:
			return
		case err != nil:
			n.log.Warn("zkrecipes: discovery: keeping a registration's node; will retry", "path", n.path, "err", err)
			later = time.After(retry)
			retry = min(2*retry, time.Second)
		default:
			retry = 50 * time.Millisecond
		}
		select {
		case <-n.ctx.Done():
			return
		case <-watch:
		case <-later:
		case <-n.kick:
		case _, ok := <-states:
			if !ok {
				return // the client closed
			}
		}
	}
}

// ensure makes the node if it is missing and returns a channel that
// delivers when it should be checked again.
func (n *clientNode) ensure() (<-chan zk.Event, error) {
	n.mu.Lock()
	p, sess := n.actual, n.sess
	n.mu.Unlock()
	if p != "" && n.ephemeral && sess != nil && sess.Err() != nil {
		if n.sequential {
			// Its session is gone, and with it the node (or soon will be).
			_ = n.c.DeleteGuaranteed(n.ctx, p, nil)
		}
		p = n.forget()
	}
	if p != "" {
		ok, _, ch, err := n.c.ExistsW(n.ctx, p)
		if err != nil {
			return nil, err
		}
		if ok {
			return ch, n.write(p)
		}
		if n.sequential {
			p = n.forget()
		}
	}
	n.mu.Lock()
	data, gen := n.data, n.gen
	n.mu.Unlock()
	created, sess, err := n.create(data)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.actual, n.sess, n.written = created, sess, gen
	n.noteLocked()
	n.mu.Unlock()
	n.once.Do(func() { close(n.created) })
	ok, _, ch, err := n.c.ExistsW(n.ctx, created)
	if err == nil && ok {
		err = n.write(created) // SetData came during the create
	}
	return ch, err
}

// forget drops the node's path (it is gone) and returns "".
func (n *clientNode) forget() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.actual = ""
	n.noteLocked()
	return ""
}

// write writes the latest data to the node at p, if it does not hold it.
func (n *clientNode) write(p string) error {
	n.mu.Lock()
	data, gen, written := n.data, n.gen, n.written
	n.mu.Unlock()
	if written >= gen {
		return nil
	}
	if _, err := n.c.Set(n.ctx, p, data, -1); err != nil {
		if errors.Is(err, zk.ErrNoNode) {
			n.wake() // gone: made again with data
			return nil
		}
		return err
	}
	n.mu.Lock()
	n.written = max(n.written, gen)
	n.noteLocked()
	n.mu.Unlock()
	return nil
}

// create makes the node once and returns its path and session.
func (n *clientNode) create(data []byte) (string, *client.Session, error) {
	if n.sequential {
		pn, err := n.c.CreateProtected(n.ctx, n.path, data, n.flags)
		return pn.Path, pn.Session, err
	}
	sess, err := n.c.WaitSession(n.ctx)
	if err != nil {
		return "", nil, err
	}
	for range 3 {
		_, err = n.c.CreateWithParents(n.ctx, n.path, data, n.flags)
		if !errors.Is(err, zk.ErrNodeExists) {
			break
		}
		ok, st, err := n.c.Exists(n.ctx, n.path)
		if err != nil {
			return "", nil, err
		}
		if !ok {
			continue
		}
		if n.ephemeral && st.EphemeralOwner != sess.ID() {
			// Another session's node, an earlier registration's that its
			// session has not yet taken away: delete it so that watchers see
			// the new one (Curator's ServiceDiscovery does the same).
			err = n.c.Delete(n.ctx, n.path, st.Version)
			if err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrBadVersion) {
				return "", nil, err
			}
			continue
		}
		// Ours (a retried create whose first reply was lost), or a
		// persistent node: take it over with the latest data.
		if _, err := n.c.Set(n.ctx, n.path, data, -1); err != nil {
			return "", nil, err
		}
		return n.path, sess, nil
	}
	if err != nil {
		return "", nil, err
	}
	return n.path, sess, nil
}
