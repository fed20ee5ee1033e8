package client

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zookeeper/zk"
)

// The recipes reach what the client keeps off its public surface through
// package internal/access.
func init() {
	access.Register(access.Impl{
		Logger: func(c any) *slog.Logger { return c.(*Client).logger() },
		Full: func(c any, path string) string {
			if cl := c.(*Client); cl != nil {
				return cl.nsPath(path)
			}
			return path
		},
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
		CreateProtectedList: func(c any, ctx context.Context, path string, data []byte, flags int32, node any) ([]string, bool, error) {
			n, kids, listed, err := c.(*Client).createProtectedList(ctx, path, data, flags)
			if err == nil {
				*node.(*ProtectedNode) = n
			}
			return kids, listed, err
		},
		Reads:       func(c any, reads []access.Read, done func(*access.Reply)) { c.(*Client).reads(reads, done) },
		WatchLoss:   func(c any, w *access.LossWatch) bool { return c.(*Client).watchLoss(w) },
		UnwatchLoss: func(c any, w *access.LossWatch) bool { return c.(*Client).unwatchLoss(w) },
	})
}

// reads is access.Reads: one batch on the connection if the client is
// connected, else every read fails at once (zk.ErrConnectionClosed, or
// zkrecipes.ErrClosed once closed). The paths are valid ones (a cache's,
// made of a validated root and the server's names).
func (c *Client) reads(reads []access.Read, done func(*access.Reply)) {
	conn := c.upNow()
	if conn == nil {
		err := zk.ErrConnectionClosed
		if c.isClosed() {
			err = zkrecipes.ErrClosed
		}
		for _, rd := range reads {
			done(&access.Reply{Read: rd, Err: err})
		}
		return
	}
	conn.Reads(reads, c.nsPath, func(r *access.Reply) {
		if errors.Is(r.Err, zk.ErrClosing) {
			r.Err = zkrecipes.ErrClosed
		}
		done(r)
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
