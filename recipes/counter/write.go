package counter

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"
)

// setOnce sends one conditional setData on the client's connection, never
// retried: a retry after a lost reply could apply the change twice, or find
// its own earlier write as another writer's (zk.ErrBadVersion). It returns
// as soon as ctx ends; sent reports whether the request was handed to the
// connection, after which any error but a server's answer leaves the
// outcome unknown.
func (c *Counter) setOnce(ctx context.Context, data []byte, version int32) (st *zk.Stat, sent bool, err error) {
	conn, err := c.cl.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	if ctx.Done() == nil {
		st, err = conn.Set(c.full, data, version)
		return st, true, err
	}
	type reply struct {
		st  *zk.Stat
		err error
	}
	ch := make(chan reply, 1)
	// The goroutine ends when go-zookeeper answers the request or fails it
	// (the connection is lost, or closed with the client).
	go func() {
		st, err := conn.Set(c.full, data, version)
		ch <- reply{st, err}
	}()
	select {
	case r := <-ch:
		return r.st, true, r.err
	case <-ctx.Done():
		select {
		case r := <-ch: // answered just as ctx ended: that is the outcome
			return r.st, true, r.err
		default:
		}
		return nil, true, ctx.Err()
	}
}

// enter takes the handle's gate: one update at a time, so that goroutines
// sharing a handle do not beat each other's writes.
func (c *Counter) enter(ctx context.Context) error {
	select {
	case c.gate <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Counter) leave() { <-c.gate }

// sleep waits d or until ctx ends (then its error).
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
