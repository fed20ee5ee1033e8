package barrier

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Barrier is Curator's DistributedBarrier: a gate that is closed while its
// node exists. Set creates the node, Remove deletes it, and Wait blocks
// while it exists. Any number of processes may hold a Barrier on one path;
// Java's DistributedBarrier on the same path is the same gate.
//
// A Barrier is safe for concurrent use. A zero or nil Barrier returns an
// error wrapping zkrecipes.ErrInvalidArgument from every method that returns an
// error.
type Barrier struct {
	c    *client.Client
	path string
	data []byte

	closing context.Context // cancelled by Close
	close   context.CancelCauseFunc
}

// New returns a barrier on path (relative to the client's namespace). It
// does no I/O. Bad input gives an error wrapping zkrecipes.ErrInvalidArgument (a nil
// client or option) or a *client.PathError (zkrecipes.ErrInvalidPath).
func New(c *client.Client, path string, opts ...Option) (*Barrier, error) {
	if err := checkArgs(c, path); err != nil {
		return nil, err
	}
	o, err := apply(opts)
	if err != nil {
		return nil, err
	}
	closing, closeFn := context.WithCancelCause(context.Background())
	return &Barrier{c: c, path: path, data: o.data, closing: closing, close: closeFn}, nil
}

func (b *Barrier) zero() bool { return b == nil || b.c == nil }

// errZeroBarrier is the error of every call on a Barrier not made by New.
func errZeroBarrier() error { return errs.Invalid("zero or nil Barrier: make one with New") }

// Path is the barrier's path, relative to the client's namespace.
func (b *Barrier) Path() string {
	if b.zero() {
		return ""
	}
	return b.path
}

// Set closes the gate: it creates the barrier node (a PERSISTENT node with
// the handle's data; missing parents become containers, as in Curator).
// A barrier already set is no error. As with every write, a Set whose ctx
// ended while its request was in flight may still create the node.
func (b *Barrier) Set(ctx context.Context) error {
	if b.zero() {
		return errZeroBarrier()
	}
	octx, stop, err := b.begin(ctx, "set")
	if err != nil {
		return err
	}
	defer stop()
	_, err = b.c.Create(octx, b.path, b.data, 0, client.WithParents())
	if err == nil || errors.Is(err, zk.ErrNodeExists) {
		return nil
	}
	return b.fail("set", octx, err)
}

// Remove opens the gate: it deletes the barrier node, and every Wait on it
// returns. A barrier not set is no error. A barrier node that has children
// is not deleted (zk.ErrNotEmpty).
func (b *Barrier) Remove(ctx context.Context) error {
	if b.zero() {
		return errZeroBarrier()
	}
	octx, stop, err := b.begin(ctx, "remove")
	if err != nil {
		return err
	}
	defer stop()
	if err := b.c.DeleteIfExists(octx, b.path); err != nil {
		return b.fail("remove", octx, err)
	}
	return nil
}

// Wait blocks while the barrier is set: it returns nil once the barrier
// node does not exist, or at once when it does not exist now. It keeps
// waiting through disconnections and session loss (the node is not tied to
// any session); it ends with ctx (its error then wraps ctx's) or Close
// (zkrecipes.ErrClosed).
//
// Unlike Curator's waitOnBarrier, Wait first syncs its server with the
// ensemble's leader, so it never returns on a stale view: it returns nil
// only if the barrier node was absent at some instant after Wait was
// called, on whichever server the client is connected to.
func (b *Barrier) Wait(ctx context.Context) error {
	if b.zero() {
		return errZeroBarrier()
	}
	octx, stop, err := b.begin(ctx, "wait")
	if err != nil {
		return err
	}
	defer stop()
	if err := syncPath(octx, b.c, b.path); err != nil {
		return b.fail("wait", octx, err)
	}
	for {
		_, _, w, err := b.c.GetWatch(octx, b.path)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return b.fail("wait", octx, err)
		}
		select {
		case <-w.Events(): // changed, deleted, or the watch ended with its session: look again
			w.Stop()
		case <-octx.Done():
			w.Stop()
			return b.fail("wait", octx, octx.Err())
		}
	}
}

// Close makes every call under way return zkrecipes.ErrClosed, and every later one.
// It does not remove the barrier: the gate is shared, and stays as it is.
// It is idempotent.
func (b *Barrier) Close() error {
	if b.zero() {
		return errZeroBarrier()
	}
	b.close(errBarrierClosed)
	return nil
}

// begin starts op: zkrecipes.ErrClosed after Close, else a context that also ends
// at Close, and its stop function.
func (b *Barrier) begin(ctx context.Context, op string) (context.Context, func(), error) {
	if b.closing.Err() != nil {
		return nil, nil, fmt.Errorf("zkrecipes: barrier %s: %s: %w", b.path, op, errBarrierClosed)
	}
	octx, stop := withClose(ctx, b.closing)
	return octx, stop, nil
}

// fail words an error of op: zkrecipes.ErrClosed once Close was called.
func (b *Barrier) fail(op string, octx context.Context, err error) error {
	if b.closing.Err() != nil && octx.Err() != nil {
		return fmt.Errorf("zkrecipes: barrier %s: %s: %w", b.path, op, errBarrierClosed)
	}
	return fmt.Errorf("zkrecipes: barrier %s: %s: %w", b.path, op, err)
}

// withClose returns a context that ends with ctx or when closing is
// cancelled (with closing's cause), and its stop function.
func withClose(ctx, closing context.Context) (context.Context, func()) {
	octx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(closing, func() { cancel(context.Cause(closing)) })
	return octx, func() {
		stop()
		cancel(nil)
	}
}

// syncPath asks the client's server to catch up with the leader (ZooKeeper's
// sync), so that the reads that follow see every write that completed
// before it was called. The request runs on a goroutine of its own so that
// ctx can end the wait; an abandoned one ends when the server answers or
// the connection closes.
func syncPath(ctx context.Context, c *client.Client, path string) error {
	full := path
	if ns := c.Namespace(); ns != "" {
		full = ns + path
	}
	return c.Do(ctx, func(ctx context.Context) error {
		conn, err := c.Conn(ctx)
		if err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() {
			_, err := conn.Sync(context.Background(), full)
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}
