package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Do runs op until it succeeds, fails with an error that is not worth
// retrying, the retry policy gives up, or ctx ends. Retryable errors are those
// of retry.IsRetryable (plus session expiry with WithRetryOnSessionExpired).
// The error returned wraps op's last error, and ctx's error when ctx ended the
// loop, so errors.Is works on both. The client's own operations already run
// under Do: calling them inside op retries twice over.
func (c *Client) Do(ctx context.Context, op func(ctx context.Context) error) error {
	if c == nil {
		return invalidArg("nil client")
	}
	if op == nil {
		return invalidArg("nil operation")
	}
	var b backoff.BackOff // made on the first failure: the common path allocates nothing
	var last error        // op's last error, kept in what ends the loop
	for attempt := 1; ; attempt++ {
		// Close's contract is that every later call returns ErrClosed: an
		// operation must not run (and maybe succeed) on a closed client.
		// Close or ctx may also end the loop here rather than during the
		// sleep below (when the sleep's timer won the race against them):
		// the error must then carry op's last error all the same.
		if c.isClosed() {
			if last != nil {
				return fmt.Errorf("%w: %w", ErrClosed, last)
			}
			return ErrClosed
		}
		if err := ctx.Err(); err != nil {
			if last != nil {
				return fmt.Errorf("%w (last error: %w)", err, last)
			}
			return err
		}
		err := op(ctx)
		if err == nil {
			return nil
		}
		last = err
		if c.isClosed() && !errors.Is(err, ErrClosed) {
			return fmt.Errorf("%w: %w", ErrClosed, err)
		}
		if !c.retryable(err) {
			return err
		}
		if b == nil {
			b = c.cfg.policy.NewBackOff()
		}
		sleep := b.NextBackOff()
		if sleep == backoff.Stop {
			return fmt.Errorf("zkrecipes/client: gave up after %d attempts: %w", attempt, err)
		}
		c.log.Debug("retrying zookeeper operation", "attempt", attempt, "err", err, "sleep", sleep)
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-c.closedCh:
			t.Stop()
			return fmt.Errorf("%w: %w", ErrClosed, err)
		}
	}
}

func (c *Client) retryable(err error) bool {
	return retry.IsRetryable(err) || (c.cfg.retryExpired && retry.IsSessionExpired(err))
}

func (c *Client) isClosed() bool {
	select {
	case <-c.closedCh:
		return true
	default:
		return false
	}
}

// run is Do over one request on the current connection.
func (c *Client) run(ctx context.Context, fn func(conn *zk.Conn) error) error {
	return c.Do(ctx, func(ctx context.Context) error {
		conn, err := c.Conn(ctx)
		if err != nil {
			return err
		}
		return fn(conn)
	})
}
