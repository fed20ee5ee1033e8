package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// naiveRecipe measures the herd lock, the textbook mistake the other locks
// avoid: every waiter watches the lock directory's children, so every create
// and every delete in it wakes every waiter, and each lists the whole
// directory again. Events are counted where its waiters receive them; the
// watch a new holder leaves behind (from the listing that granted it) also
// fires later, at the holder's session, but reaches no waiter and is not
// counted.
func naiveRecipe(e *env, dir string, session time.Duration) *recipe {
	var events atomic.Int64
	return &recipe{
		newWorker: func(ctx context.Context, _ int) (worker, error) {
			conn, err := dial(ctx, e.servers, session, nil, e.dialer())
			if err != nil {
				return worker{}, err
			}
			return worker{locker: &naiveLock{conn: conn, dir: dir, events: &events}, close: conn.Close}, nil
		},
		events: events.Load,
	}
}

// naiveLock is the herd lock on a bare go-zookeeper connection.
type naiveLock struct {
	conn   *zk.Conn
	dir    string
	events *atomic.Int64 // watch events received while waiting
	node   string        // full path of the held node; "" when not held
}

func (l *naiveLock) Lock(ctx context.Context) error {
	if l.node != "" {
		return errors.New("naive lock: already held")
	}
	node, err := l.conn.Create(l.dir+"/lock-", nil, zk.FlagEphemeralSequential, worldACL)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	mine := path.Base(node)
	for {
		kids, _, ch, err := l.conn.ChildrenW(l.dir)
		if err != nil {
			return l.abandon(node, fmt.Errorf("list: %w", err))
		}
		// Sequence numbers are fixed-width, so names sort in queue order.
		if len(kids) > 0 && slices.Min(kids) == mine {
			l.node = node
			return nil // the watch just set stays behind and fires later
		}
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNotWatching {
				l.events.Add(1)
			}
			if ev.Err != nil {
				return l.abandon(node, ev.Err)
			}
		case <-ctx.Done():
			return l.abandon(node, ctx.Err())
		}
	}
}

// abandon deletes the node of a failed Lock.
func (l *naiveLock) abandon(node string, err error) error {
	if derr := l.conn.Delete(node, -1); derr != nil && !errors.Is(derr, zk.ErrNoNode) {
		return errors.Join(err, fmt.Errorf("delete %s: %w", node, derr))
	}
	return err
}

func (l *naiveLock) Unlock(context.Context) error {
	if l.node == "" {
		return errors.New("naive lock: not held")
	}
	err := l.conn.Delete(l.node, -1)
	l.node = ""
	return err
}
