package client

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"

	"github.com/cenkalti/backoff/v4"

	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Do runs op until it succeeds, fails with an error that is not worth
// retrying, the retry policy gives up, or ctx ends. Retryable errors are those
// of retry.IsRetryable (plus session expiry with WithRetryOnSessionExpired).
// The error returned wraps op's last error, and ctx's error when ctx ended the
// loop, so errors.Is works on both. The client's own operations already run
// under Do: calling them inside op retries twice over.
//
// Do checks ctx between attempts; op itself must honour ctx. The client's
// own operations do: each returns as soon as ctx ends, even while its request
// is still waiting for an answer, which is then left to finish on its own.
func (c *Client) Do(ctx context.Context, op func(ctx context.Context) error) error {
	if c == nil || c.closedCh == nil {
		return errZeroClient()
	}
	if op == nil {
		return errs.Invalid("nil operation")
	}
	if c.cfg.policy == nil {
		// A zero Client (not made by New): it has no policy, and never a
		// connection for op to use.
		return errNotStarted
	}
	var b backoff.BackOff // made on the first failure: the common path allocates nothing
	var last error        // op's last error, kept in what ends the loop
	for attempt := 1; ; attempt++ {
		if err := c.stopped(ctx, last); err != nil {
			return err
		}
		err := op(ctx)
		if err == nil {
			return nil
		}
		if errors.Is(err, errAbandoned) {
			// ctx ended while the attempt's request was in flight: the
			// attempt has no outcome of its own, so the loop ends as if ctx
			// had ended before it (stopped is not nil: ctx is over).
			if err := c.stopped(ctx, last); err != nil {
				return err
			}
			return err
		}
		last = err
		if c.isClosed() && !errors.Is(err, zkrecipes.ErrClosed) {
			return fmt.Errorf("%w: %w", errClosed, err)
		}
		if !c.retryable(err) {
			return err
		}
		if b == nil {
			b = c.cfg.policy.NewBackOff()
		}
		sleep := b.NextBackOff()
		if sleep == backoff.Stop {
			return fmt.Errorf("zkrecipes: gave up after %d attempts: %w", attempt, err)
		}
		c.log.Debug("retrying zookeeper operation", "attempt", attempt, "err", err, "sleep", sleep)
		if h := c.cfg.hooks; h != nil && h.Retry != nil {
			h.Retry(RetryHook{Attempt: attempt, Err: err, Sleep: sleep})
		}
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-c.closedCh:
			t.Stop()
			return fmt.Errorf("%w: %w", errClosed, err)
		}
	}
}

func (c *Client) retryable(err error) bool {
	return retry.IsRetryable(err) || (c.cfg.retryExpired && retry.IsSessionExpired(err))
}

func (c *Client) isClosed() bool { return isClosedChan(c.closedCh) }

// stopped is the error that ends Do's loop before an attempt: the client
// closed or ctx ended (wrapping op's last error, if any), else nil.
func (c *Client) stopped(ctx context.Context, last error) error {
	// Close's contract is that every later call returns zkrecipes.ErrClosed: an
	// operation must not run (and maybe succeed) on a closed client. Close or
	// ctx may also end the loop here rather than during Do's sleep (when the
	// sleep's timer won the race against them): the error must then carry
	// op's last error all the same.
	if c.isClosed() {
		if last != nil {
			return fmt.Errorf("%w: %w", errClosed, last)
		}
		return errClosed
	}
	if err := ctx.Err(); err != nil {
		if last != nil {
			return fmt.Errorf("%w (last error: %w)", err, last)
		}
		return err
	}
	return nil
}

// run is Do over one request (or a short sequence of them) on the current
// connection; see runResult.
func (c *Client) run(ctx context.Context, fn func(conn *wire.Conn) error) error {
	_, err := runResult(c, ctx, func(conn *wire.Conn) (struct{}, error) {
		return struct{}{}, fn(conn)
	})
	return err
}

// runResult is Do over fn on the current connection, returning fn's result
// of the attempt that ended the loop. The connection's requests (made with
// bg) block until the server answers or the connection is lost, which on a link that
// silently drops packets takes 2/3 of the session timeout; so each attempt
// runs fn on a goroutine of its own (see await) and runResult returns as
// soon as ctx ends. An abandoned fn finishes on its own: the connection
// answers it, or fails it when the connection is lost or closed (Close
// waits for it). Its requests may still take effect on the server.
//
// fn runs on that goroutine: it must not write memory its caller can see,
// nor read memory the caller may change once runResult returns.
func runResult[T any](c *Client, ctx context.Context, fn func(conn *wire.Conn) (T, error)) (T, error) {
	var out T
	err := c.Do(ctx, func(ctx context.Context) error {
		conn, _, err := c.connUp(ctx)
		if err != nil {
			return err
		}
		v, err := await(ctx, c, func() (T, error) { return fn(conn) }, nil)
		out = v // on this (the caller's) goroutine; zero when abandoned
		return err
	})
	return out, err
}

// runOne is runResult for an fn that is one request made with the ctx it is
// given: the connection returns at once when ctx ends (the request goes on
// and its late reply is dropped), so fn runs on the caller's goroutine, with
// no goroutine and no copy of its data. A closed client fails it with the
// connection's zk.ErrClosing, which Do reports as zkrecipes.ErrClosed.
func runOne[T any](c *Client, ctx context.Context, fn func(ctx context.Context, conn *wire.Conn) (T, error)) (T, error) {
	var out T
	err := c.Do(ctx, func(ctx context.Context) error {
		conn, _, err := c.connUp(ctx)
		if err != nil {
			return err
		}
		v, err := fn(ctx, conn)
		out = v
		return err
	})
	return out, err
}

// errAbandoned is wrapped (with ctx's error) by await's error when ctx ended
// before fn returned. Do turns it into its usual "ctx ended" error, so it
// never reaches a caller.
var errAbandoned = errors.New("zkrecipes: request abandoned in flight")

// await runs fn and returns its result, or, as soon as ctx ends first, the
// zero T and an error wrapping errAbandoned and ctx.Err(). fn then goes on
// running on its own goroutine; when it returns, orphaned (if not nil) gets
// its result on that goroutine, to undo what fn may have done. Exactly one
// of the two happens: either the caller gets fn's result, or orphaned does.
//
// fn counts in c.wg while it runs, so Close (which closes the connection,
// and so fails every request in flight at once) waits for it; await returns
// zkrecipes.ErrClosed instead of starting it on a closed client. fn runs on a request
// goroutine of its own; a ctx that can never end runs it on the caller's.
func await[T any](ctx context.Context, c *Client, fn func() (T, error), orphaned func(T, error)) (T, error) {
	if ctx.Done() == nil {
		return fn()
	}
	var zero T
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return zero, errClosed
	}
	c.wg.Add(1) // under c.mu, before Close's Wait: see keepDeleting
	c.mu.Unlock()

	type result struct {
		v   T
		err error
	}
	const (
		running = iota
		delivered
		abandoned
	)
	var state atomic.Int32
	res := make(chan result, 1)
	go func() {
		defer c.wg.Done()
		v, err := fn()
		if state.CompareAndSwap(running, delivered) {
			res <- result{v, err}
			return
		}
		if orphaned != nil {
			orphaned(v, err)
		}
	}()
	select {
	case r := <-res:
		return r.v, r.err
	case <-ctx.Done():
		if state.CompareAndSwap(running, abandoned) {
			return zero, fmt.Errorf("%w: %w", errAbandoned, ctx.Err())
		}
		// fn returned just as ctx ended: its result is the outcome.
		r := <-res
		return r.v, r.err
	}
}
