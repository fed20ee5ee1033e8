package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// gozkRecipe measures go-zookeeper's own lock, zk.Lock: one connection and
// one lock per worker. Its waiters set one watch per wait on their
// predecessor; since zk.Lock offers no hook, the events are counted by each
// connection's event callback (that lock sets no other watch).
func gozkRecipe(e *env, dir string, session time.Duration) *recipe {
	var events atomic.Int64
	return &recipe{
		newWorker: func(ctx context.Context, _ int) (worker, error) {
			conn, err := dial(ctx, e.servers, session, &events, e.dialer())
			if err != nil {
				return worker{}, err
			}
			l := &gozkLock{conn: conn, lock: zk.NewLock(conn, dir, worldACL)}
			return worker{locker: l, close: conn.Close}, nil
		},
		events: events.Load,
	}
}

// gozkLock adapts zk.Lock, which takes no context, to locker.
type gozkLock struct {
	conn *zk.Conn
	lock *zk.Lock
}

// Lock waits for zk.Lock. zk.Lock cannot be cancelled, so a cancelled ctx
// closes the worker's session instead: its waiter then fails, and its node
// goes with the session.
func (l *gozkLock) Lock(ctx context.Context) error {
	stop := context.AfterFunc(ctx, l.conn.Close)
	defer stop()
	if err := l.lock.Lock(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

func (l *gozkLock) Unlock(context.Context) error { return l.lock.Unlock() }
