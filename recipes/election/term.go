package election

import (
	"context"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// Term is one span of leadership: from the moment a participant was
// granted leadership (its node first in the queue, read and found to be
// its live session's) until leadership may be gone. A Term is safe for
// concurrent use.
//
// A suspension that ends in a reconnect of the same session ends a term
// (unless WithLostOnSessionLossOnly) but not the node: the next term, on the
// same node, carries the same token. A lost session ends the term and the
// node with it.
type Term struct {
	c       *client.Client
	node    string
	id      string
	token   int64
	session *client.Session

	proclaimMu sync.Mutex // one Proclaim at a time, so values land in call order

	ctx    context.Context
	cancel context.CancelCauseFunc

	interrupt chan struct{}
	intOnce   sync.Once
}

func newTerm(parent context.Context, c *client.Client, node, id string, token int64, sess *client.Session) *Term {
	ctx, cancel := context.WithCancelCause(parent)
	return &Term{
		c: c, node: node, id: id, token: token, session: sess,
		ctx: ctx, cancel: cancel, interrupt: make(chan struct{}),
	}
}

// Node is the path of the leader's node (relative to the client's
// namespace); "" for a nil Term.
func (t *Term) Node() string {
	if t == nil {
		return ""
	}
	return t.node
}

// ID is the participant id the node carries.
func (t *Term) ID() string {
	if t == nil {
		return ""
	}
	return t.id
}

// Token is the term's fencing token: the creation zxid of the leader's
// node. Tokens grow strictly from one leader's node to the next on a path;
// terms on the same node (a reconnect of the same session) share one.
func (t *Term) Token() int64 {
	if t == nil {
		return 0
	}
	return t.token
}

// Session is the session the leader's node belongs to.
func (t *Term) Session() *client.Session {
	if t == nil {
		return nil
	}
	return t.session
}

// Context is cancelled the moment leadership may be gone; context.Cause
// says why: zkrecipes.ErrLost when the holding may be gone (a suspension,
// the session's loss, the node deleted, or the client's Close, which ends
// its session), ErrInterrupted after Interrupt, ErrResigned once Run's lead
// function returned, zkrecipes.ErrClosed after the Latch's own Close, or
// the cause of the context Run was given. A nil or zero Term's is already
// cancelled, with cause zkrecipes.ErrInvalidArgument.
func (t *Term) Context() context.Context {
	if !t.made() {
		return canceled
	}
	return t.ctx
}

// Done is Context().Done().
func (t *Term) Done() <-chan struct{} { return t.Context().Done() }

// Err is nil while the term lasts, then why it ended (see Context).
func (t *Term) Err() error {
	if !t.made() {
		return zkrecipes.ErrInvalidArgument
	}
	if t.ctx.Err() == nil {
		return nil
	}
	return context.Cause(t.ctx)
}

// Interrupt makes the leader step down: the term's context is cancelled
// with ErrInterrupted, its node is deleted (after the lead function
// returned, for Run), and the participant queues again at the back. It may
// be called from any goroutine, any number of times.
func (t *Term) Interrupt() {
	if !t.made() {
		return
	}
	t.end(ErrInterrupted)
	t.intOnce.Do(func() { close(t.interrupt) })
}

// end cancels the term's context with cause (the first cause wins).
func (t *Term) end(cause error) { t.cancel(cause) }

func (t *Term) live() bool { return t.made() && t.ctx.Err() == nil }

// made reports whether t came from newTerm: a nil or zero Term has no
// context to cancel and no interrupt channel to close.
func (t *Term) made() bool { return t != nil && t.ctx != nil }

var canceled = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(zkrecipes.ErrInvalidArgument)
	return ctx
}()
