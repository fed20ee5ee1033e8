package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// floorRecipe measures no lock at all: the bare requests any queue lock
// makes at least once per cycle, create (ephemeral sequential) and
// getChildren to acquire, delete to release, uncontended. With several
// workers each works in a directory of its own, so it measures how many such
// cycles the server takes, not a lock.
func floorRecipe(e *env, dir string, session time.Duration, workers int) *recipe {
	var events atomic.Int64 // stays 0: the floor sets no watch
	return &recipe{
		newWorker: func(ctx context.Context, i int) (worker, error) {
			conn, err := dial(ctx, e.servers, session, &events, e.dialer())
			if err != nil {
				return worker{}, err
			}
			d := dir
			if workers > 1 {
				d = fmt.Sprintf("%s/w%d", dir, i)
				if err := ensureNode(conn, d); err != nil {
					conn.Close()
					return worker{}, err
				}
			}
			return worker{locker: &floorCycle{conn: conn, dir: d}, close: conn.Close}, nil
		},
		events:      events.Load,
		independent: workers > 1,
	}
}

// floorCycle is the lock-shaped sequence of requests without the waiting.
type floorCycle struct {
	conn *zk.Conn
	dir  string
	node string
}

func (f *floorCycle) Lock(context.Context) error {
	node, err := f.conn.Create(f.dir+"/lock-", nil, zk.FlagEphemeralSequential, worldACL)
	if err != nil {
		return err
	}
	f.node = node
	_, _, err = f.conn.Children(f.dir)
	return err
}

func (f *floorCycle) Unlock(context.Context) error {
	if f.node == "" {
		return errors.New("floor: no node to delete")
	}
	err := f.conn.Delete(f.node, -1)
	f.node = ""
	return err
}
