package client

import (
	"context"
	"log/slog"
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zookeeper/zk"
)

// The recipes reach what the client keeps off its public surface through
// package internal/access.
func init() {
	access.Register(access.Impl{
		Logger: func(c any) *slog.Logger { return c.(*Client).logger() },
		RetryPolicy: func(c any) retry.Policy {
			return c.(*Client).retryPolicy()
		},
		StartAcquire: func(c any, ctx context.Context, recipe, path string) (context.Context, func(error)) {
			return c.(*Client).hooks().startAcquire(ctx, recipe, path)
		},
		Held: func(c any, recipe, path string, since time.Time) {
			c.(*Client).hooks().held(recipe, path, since)
		},
		Released: func(c any, recipe, path string, since time.Time, lost bool) {
			c.(*Client).hooks().release(recipe, path, since, lost)
		},
		CacheEvent: func(c any, root, typ string) { c.(*Client).hooks().cache(root, typ) },
		WatchC:     func(w any) <-chan zk.Event { return w.(*Watch).raw() },
		Resolve:    func(w any, ev zk.Event, ok bool) zk.Event { return w.(*Watch).resolve(ev, ok) },
	})
}

// logger is the client's logger (slog.Default() for a nil or zero Client).
func (c *Client) logger() *slog.Logger {
	if c == nil || c.closedCh == nil {
		return slog.Default()
	}
	return c.log
}

// retryPolicy is the policy the client's operations run under; recipes use
// it for their own retries (a waiter re-queueing after its session was
// lost).
func (c *Client) retryPolicy() retry.Policy {
	if c == nil || c.cfg.policy == nil {
		return retry.Default()
	}
	return c.cfg.policy
}
