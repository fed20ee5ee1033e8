package barrier

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// readyName is the node whose creation opens a double barrier (Curator's
// READY_NODE).
const readyName = "ready"

// Double is Curator's DistributedDoubleBarrier: one member of a group of
// processes that start a computation together (Enter returns once n
// members are in) and finish it together (Leave returns once every member
// has left). See the package documentation for the protocol.
//
// A Double is one member: its calls run one at a time (a call waits for
// the one under way), and it enters and leaves in turn, any number of
// times. It is safe for concurrent use. A zero or nil Double returns an
// error wrapping zkrecipes.ErrInvalidArgument from every method that returns an
// error.
type Double struct {
	c     *client.Client
	path  string
	ready string
	n     int
	data  []byte

	turn    chan struct{}   // one call at a time: holds a token while one runs
	closing context.Context // cancelled by Close
	close   context.CancelCauseFunc

	// Written by the call that holds the turn, under mu; read under mu.
	mu      sync.Mutex
	entered bool            // Enter succeeded and Leave has not run since
	own     string          // the member node's path while entered
	sess    *client.Session // the session own was made in
	round   int64           // the czxid of the ready node this member passed, while entered
	last    int64           // the czxid of the last ready node it passed (0 before the first)

	// Used only by the call that holds the turn:
	closed     bool          // Close has run
	closeErr   error         // its result
	stale      []string      // own nodes given up whose delete went on in the background
	readyWatch *client.Watch // an existence watch on the ready node not yet fired, or nil; given up when the call ends
}

// NewDouble returns a member of the double barrier at path (relative to the
// client's namespace) that opens once n members are in. n is a threshold,
// not a limit, as in Curator: more than n may enter. NewDouble does no I/O.
// Bad input gives an error wrapping zkrecipes.ErrInvalidArgument (a nil client or
// option, n below 1) or a *client.PathError (zkrecipes.ErrInvalidPath).
func NewDouble(c *client.Client, path string, n int, opts ...Option) (*Double, error) {
	if err := checkArgs(c, path); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, errs.Invalid("member count %d: must be at least 1", n)
	}
	o, err := apply(opts)
	if err != nil {
		return nil, err
	}
	closing, closeFn := context.WithCancelCause(context.Background())
	return &Double{c: c, path: path, ready: path + "/" + readyName, n: n, data: o.data,
		turn: make(chan struct{}, 1), closing: closing, close: closeFn}, nil
}

func (d *Double) zero() bool { return d == nil || d.c == nil }

// errZeroDouble is the error of every call on a Double not made by NewDouble.
func errZeroDouble() error { return errs.Invalid("zero or nil Double: make one with NewDouble") }

// Path is the barrier's path, relative to the client's namespace.
func (d *Double) Path() string {
	if d.zero() {
		return ""
	}
	return d.path
}

// Members is the number of members that open the barrier (NewDouble's n).
func (d *Double) Members() int {
	if d.zero() {
		return 0
	}
	return d.n
}

// Node is the member's own node (a path relative to the client's
// namespace) while it is in the barrier, from Enter's success until Leave
// or Close; "" otherwise.
func (d *Double) Node() string {
	if d.zero() {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.entered {
		return ""
	}
	return d.own
}

// Round identifies the opening this member passed, while it is in the
// barrier: the zxid at which the ready node was created (its czxid).
// Members that passed the same opening see the same Round; a later opening
// of the same path has a greater one. 0 when not in the barrier.
func (d *Double) Round() int64 {
	if d.zero() {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.entered {
		return 0
	}
	return d.round
}

// Close leaves without waiting: it ends the call under way (it returns
// zkrecipes.ErrClosed), then deletes the member's node if it has one, with the
// client's guaranteed delete (within ctx; else the error wraps
// zkrecipes.ErrDeletePending and the delete goes on in the background while the
// session lives), and the ready node too when no member is left. Every
// later call returns zkrecipes.ErrClosed. A second Close returns the first
// one's result (once the first has it).
func (d *Double) Close(ctx context.Context) error {
	if d.zero() {
		return errZeroDouble()
	}
	d.close(errBarrierClosed)
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: barrier %s: close: waiting for the call under way: %w", d.path, ctx.Err())
	}
	defer d.give()
	if d.closed {
		return d.closeErr
	}
	d.closed = true
	var err error
	if d.entered {
		err = d.drop(ctx, d.own, d.sess)
		d.sweep(ctx)
		d.out()
	}
	if len(d.stale) > 0 && err == nil {
		_ = d.clearStale(ctx) // best effort: their guaranteed deletes go on anyway
	}
	d.closeErr = err
	return err
}

// out records that the member is out of the barrier.
func (d *Double) out() {
	d.mu.Lock()
	d.entered, d.own, d.sess, d.round = false, "", nil, 0
	d.mu.Unlock()
}

// take waits for the handle's turn, for ctx or for Close.
func (d *Double) take(ctx context.Context) error {
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: barrier %s: waiting for the call under way: %w", d.path, ctx.Err())
	case <-d.closing.Done():
		return fmt.Errorf("zkrecipes: barrier %s: %w", d.path, errBarrierClosed)
	}
	if d.closed {
		d.give()
		return fmt.Errorf("zkrecipes: barrier %s: %w", d.path, errBarrierClosed)
	}
	return nil
}

func (d *Double) give() { <-d.turn }

// child is the path of the barrier's child name.
func (d *Double) child(name string) string { return d.path + "/" + name }

// ended is the error of a call whose context octx ended: zkrecipes.ErrClosed when
// Close ended it, else ctx's error.
func (d *Double) ended(op string, ctx context.Context) error {
	if d.closing.Err() != nil {
		return fmt.Errorf("zkrecipes: barrier %s: %s: %w", d.path, op, errBarrierClosed)
	}
	return fmt.Errorf("zkrecipes: barrier %s: %s: %w", d.path, op, ctx.Err())
}

// cleanupCtx bounds the cleanup a call does after its own context ended:
// one session timeout (at least a second), detached from Close.
func (d *Double) cleanupCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), max(d.c.SessionTimeout(), time.Second))
}

// drop deletes the member node own of session sess with the client's
// guaranteed delete. A delete that goes on in the background is
// remembered, so that the next Enter makes sure the node is gone before it
// makes another. A closed client ended the session and its nodes: no error.
func (d *Double) drop(ctx context.Context, own string, sess *client.Session) error {
	err := d.c.DeleteGuaranteed(ctx, own, sess)
	switch {
	case err == nil:
		return nil
	case isClientClosed(d.c):
		return nil
	}
	d.stale = append(d.stale, own)
	return fmt.Errorf("zkrecipes: barrier %s: %w", d.path, err)
}

// clearStale deletes the member nodes an earlier call gave up and left to
// the background, so that a node of this member is never counted twice.
func (d *Double) clearStale(ctx context.Context) error {
	for len(d.stale) > 0 {
		if err := d.c.DeleteIfExists(ctx, d.stale[0]); err != nil {
			return err
		}
		d.stale = d.stale[1:]
	}
	return nil
}

// sweep deletes the ready node when it is the barrier's only child: the
// last member out of a round whose others gave up or were lost. Best
// effort, within ctx.
func (d *Double) sweep(ctx context.Context) {
	kids, _, err := d.c.Children(ctx, d.path)
	if err == nil && len(kids) == 1 && kids[0] == readyName {
		_ = d.c.DeleteIfExists(ctx, d.ready)
	}
}

func isClientClosed(c *client.Client) bool {
	s := c.Session()
	return s != nil && errors.Is(s.Err(), zkrecipes.ErrClosed)
}
