package lockq

import (
	"context"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// Again runs attempt until it returns without an error that lostPlace
// accepts, ctx ends, or the client's retry policy gives up. It is the loop
// of a waiter that lost its place (its session, or its nodes) but not its
// reason to wait: nothing was held, so it simply takes a new place, after
// the policy's sleep. who names the waiter in the log and in the error of a
// policy that gave up, which wraps the last attempt's error.
func Again[T any](ctx context.Context, c *client.Client, who, path string, attempt func() (T, error), lostPlace func(error) bool) (T, error) {
	var b backoff.BackOff
	for n := 1; ; n++ {
		v, err := attempt()
		if err == nil || !lostPlace(err) {
			return v, err
		}
		var zero T
		if b == nil {
			b = access.RetryPolicy(c).NewBackOff()
		}
		sleep := b.NextBackOff()
		if sleep == backoff.Stop {
			return zero, fmt.Errorf("zkrecipes: %s lost its place %d times: %w", who, n, err)
		}
		access.Logger(c).Debug(who+" lost its place; trying again", "path", path, "err", err, "sleep", sleep)
		if !Sleep(ctx, sleep) {
			return zero, fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		}
	}
}

// Sleep waits for d, or until ctx ends: it reports whether it waited d. A d
// of zero or less does not wait: it reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
