package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
)

// Latch is one participant in a leader latch: Curator's LeaderLatch, wire
// compatible with it. See the package documentation. A zero Latch returns
// an error wrapping zkrecipes.ErrInvalidArgument from every method that returns one.
type Latch struct {
	c    *client.Client
	q    *lockq.Queue
	path string
	id   string
	req  lockq.Request
	mode CloseMode
	note *notifier // the listeners' calls

	startMu sync.Mutex // serialises Start and Close

	mu       sync.Mutex
	started  bool
	closed   bool
	closeErr error // the first Close's result (written under startMu)
	fatal    error // why the campaign stopped for good (the client closed)
	term     *Term // the current term, or nil
	node     client.ProtectedNode
	changed  chan struct{} // closed and replaced on every change above
	terms    chan *Term    // one slot, latest wins
	stop     context.CancelFunc
	done     chan struct{} // closed when the campaign has returned
}

// NewLatch returns a participant in the leader latch at path (relative to
// the client's namespace). It does no I/O: Start joins.
func NewLatch(c *client.Client, path string, opts ...Option) (*Latch, error) {
	if err := checkArgs(c, path); err != nil {
		return nil, err
	}
	o, err := apply(opts)
	if err != nil {
		return nil, err
	}
	return &Latch{
		c: c, q: lockq.New(c, path, markers...), path: path, id: o.id,
		req:     request(LatchName, o),
		mode:    o.closeMode,
		note:    newNotifier(o.listeners),
		changed: make(chan struct{}),
		terms:   make(chan *Term, 1),
	}, nil
}

func (l *Latch) valid() bool { return l != nil && l.q != nil }

// Path is the latch's path; ID the participant id.
func (l *Latch) Path() string {
	if !l.valid() {
		return ""
	}
	return l.path
}

// ID is the participant id written in the latch's node.
func (l *Latch) ID() string {
	if !l.valid() {
		return ""
	}
	return l.id
}

// Start joins the election: it creates the latch's node (so participants
// started one after another lead in that order) and returns; the
// campaign then goes on in the background until Close. When ctx ends (or
// the connection fails) before the node is made, Start returns that error
// and the latch goes on joining in the background: Close it all the same.
// An error that will not pass (the server's ACL refuses the node, the
// client is closed) leaves the latch not started. zkrecipes.ErrAlreadyStarted
// on a second Start, zkrecipes.ErrClosed after Close.
func (l *Latch) Start(ctx context.Context) error {
	if !l.valid() {
		return errZero
	}
	if ctx == nil {
		return errs.Invalid("nil context")
	}
	l.startMu.Lock()
	defer l.startMu.Unlock()
	l.mu.Lock()
	closed, started := l.closed, l.started
	l.mu.Unlock()
	switch {
	case closed:
		return fmt.Errorf("%w: latch %s", zkrecipes.ErrClosed, l.path)
	case started:
		return fmt.Errorf("%w: latch %s", zkrecipes.ErrAlreadyStarted, l.path)
	}
	node, err := l.enter(ctx)
	if err != nil && final(err) {
		return err
	}
	// On a passing failure the campaign enters by itself (node is zero).
	run, stop := context.WithCancel(context.Background())
	l.mu.Lock()
	l.started, l.node, l.stop, l.done = true, node, stop, make(chan struct{})
	done := l.done
	l.mu.Unlock()
	l.note.start()
	go l.campaign(run, node, done)
	return err
}

// final reports whether err from joining will not pass by trying again.
func final(err error) bool {
	var acl *client.ACLError
	return errors.As(err, &acl) || errors.Is(err, zkrecipes.ErrClosed) || errors.Is(err, zkrecipes.ErrInvalidArgument)
}

// enter makes a node, retrying a node that landed in a stale session.
func (l *Latch) enter(ctx context.Context) (client.ProtectedNode, error) {
	for {
		node, err := l.q.Enter(ctx, l.req)
		if err == nil || !lockq.Requeues(err) || ctx.Err() != nil {
			return node, err
		}
	}
}

// Await waits until this participant leads and returns the current term
// (possibly already ended by the time the caller looks: see Term.Done), or
// fails with ctx's error, or zkrecipes.ErrClosed once the latch or its client is
// closed. It may be called before Start.
func (l *Latch) Await(ctx context.Context) (*Term, error) {
	if !l.valid() {
		return nil, errZero
	}
	if ctx == nil {
		return nil, errs.Invalid("nil context")
	}
	for {
		l.mu.Lock()
		t, closed, fatal, ch := l.term, l.closed, l.fatal, l.changed
		l.mu.Unlock()
		switch {
		case closed:
			return nil, fmt.Errorf("%w: latch %s", zkrecipes.ErrClosed, l.path)
		case fatal != nil:
			return nil, fatal
		case t.live():
			return t, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Leading reports whether this participant leads now: it has a term whose
// context is not cancelled.
func (l *Latch) Leading() bool {
	if !l.valid() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.term.live()
}

// Term returns the current term, or nil when this participant does not
// lead.
func (l *Latch) Term() *Term {
	if !l.valid() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.term.live() {
		return nil
	}
	return l.term
}

// Terms returns the channel on which each new term is sent as it starts.
// It holds one term: a reader that falls behind gets the latest, never an
// older one after a newer (a term older than the latest has ended anyway).
// It is closed by Close. There is one channel per Latch, for one reader.
// For a zero Latch it is nil.
func (l *Latch) Terms() <-chan *Term {
	if !l.valid() {
		return nil
	}
	return l.terms
}

// Node is the path of the latch's current node, "" while it has none.
func (l *Latch) Node() string {
	if !l.valid() {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.node.Path
}

// Close leaves the election: the current term's context is cancelled
// (cause zkrecipes.ErrClosed) before anything else, whatever the CloseMode (which
// only says whether the listeners' NotLeader is called for that term),
// then the latch's node is deleted
// with a guaranteed delete: if that cannot finish within ctx (nil means no
// deadline), the latch is closed all the same, the client keeps deleting the
// node in the background while its session lives, and the error wraps
// zkrecipes.ErrDeletePending. Terms is closed. A second Close returns the
// first one's result.
func (l *Latch) Close(ctx context.Context) error {
	if !l.valid() {
		return errZero
	}
	if ctx == nil {
		ctx = context.Background()
	}
	l.startMu.Lock()
	defer l.startMu.Unlock()
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return l.closeErr
	}
	l.closed = true
	stop, done := l.stop, l.done
	l.broadcastLocked()
	l.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	l.mu.Lock()
	node := l.node
	l.node = client.ProtectedNode{}
	l.mu.Unlock()
	close(l.terms)
	var err error
	if node.Path != "" {
		err = l.c.DeleteGuaranteed(ctx, node.Path, node.Session)
	}
	l.closeErr = err // read by later Closes, which wait on startMu meanwhile
	return err
}

func (l *Latch) broadcastLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *Latch) setNode(n client.ProtectedNode) {
	l.mu.Lock()
	l.node = n
	l.mu.Unlock()
}

// campaign keeps the latch in the queue until stop: wait on its node until
// it is first, lead while the holding lasts, and after a loss either resume
// on the same node (the session lives: a reconnect) or give the node up and
// queue again with a new one.
func (l *Latch) campaign(ctx context.Context, node client.ProtectedNode, done chan struct{}) {
	defer close(done)
	defer l.note.finish() // the campaign makes the only calls
	b := newBackoff()
	for ctx.Err() == nil {
		if node.Path == "" {
			n, err := l.q.Enter(ctx, l.req)
			if err != nil {
				if !l.failed(ctx, b, "joining the latch", err) {
					return
				}
				continue
			}
			node = n
			l.setNode(n)
		}
		actx, done := access.StartAcquire(l.c, ctx, l.req.Recipe, l.path)
		held, err := l.q.Resume(actx, l.req, node)
		done(err)
		if err != nil {
			if lockq.Requeues(err) {
				node = l.abandon(node)
			}
			if !l.failed(ctx, b, "waiting in the latch", err) {
				return
			}
			continue
		}
		tok, err := held.Token(ctx)
		if err != nil || lockq.IsClosed(held.Lost()) {
			// Lost before the node could be vouched for: look again once
			// connected (a deleted or foreign node then shows as such).
			held.Drop()
			l.waitConnected(ctx, node.Session)
			continue
		}
		b.Reset()
		t := newTerm(context.Background(), l.c, node.Path, l.id, tok, node.Session)
		l.begin(t)
		var why error
		select {
		case <-held.Lost():
			why = zkrecipes.ErrLost
		case <-t.interrupt:
			why = ErrInterrupted
		case <-ctx.Done():
			why = zkrecipes.ErrClosed
		}
		t.end(why)
		l.finish(t, why != zkrecipes.ErrClosed || l.mode == CloseNotifyLeader)
		held.Drop()
		switch {
		case ctx.Err() != nil:
			return // Close deletes the node
		case why == ErrInterrupted:
			node = l.abandon(node)
		case lockq.IsClosed(node.Session.Done()):
			node = l.abandon(node)
		default:
			// Suspended, or the node changed: resume on it once connected;
			// Resume finds out whether it is still ours and still first.
			l.waitConnected(ctx, node.Session)
		}
	}
}

// failed handles a failed step of the campaign: false means stop (ctx
// ended, or the client closed: then Await reports it); else it waits a
// backoff first.
func (l *Latch) failed(ctx context.Context, b backoff.BackOff, what string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, zkrecipes.ErrClosed) || errors.Is(err, zkrecipes.ErrInvalidArgument) {
		l.mu.Lock()
		l.fatal = fmt.Errorf("zkrecipes: latch %s stopped: %w", l.path, err)
		l.broadcastLocked()
		l.mu.Unlock()
		return false
	}
	sleep := b.NextBackOff()
	access.Logger(l.c).Debug("leader latch: "+what+" failed; trying again", "path", l.path, "err", err, "sleep", sleep)
	return lockq.Sleep(ctx, sleep)
}

// abandon gives up node (guaranteed delete) and returns the zero node.
func (l *Latch) abandon(node client.ProtectedNode) client.ProtectedNode {
	lockq.Abandon(l.c, node)
	l.setNode(client.ProtectedNode{})
	return client.ProtectedNode{}
}

func (l *Latch) begin(t *Term) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.term = t
	select {
	case <-l.terms:
	default:
	}
	l.terms <- t
	l.broadcastLocked()
	l.note.post(t, true)
}

// finish records that t has ended (its context is cancelled); notify says
// whether the listeners hear of it.
func (l *Latch) finish(t *Term, notify bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.term == t {
		l.term = nil
	}
	l.broadcastLocked()
	if notify {
		l.note.post(t, false)
	}
}

// waitConnected returns once c has a connection (Disconnected is open),
// sess ended, or ctx ended.
func (l *Latch) waitConnected(ctx context.Context, sess *client.Session) {
	waitConnected(ctx, l.c, sess)
}

func waitConnected(ctx context.Context, c *client.Client, sess *client.Session) {
	states, cancel := c.Subscribe()
	defer cancel()
	for lockq.IsClosed(c.Disconnected()) {
		select {
		case _, ok := <-states:
			if !ok {
				return // the client closed
			}
		case <-sess.Done():
			return
		case <-ctx.Done():
			return
		}
	}
}

func newBackoff() backoff.BackOff {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxInterval = 2 * time.Second
	b.MaxElapsedTime = 0
	return b
}
