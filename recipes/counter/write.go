package counter

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
)

// step is what one try read and wrote.
type step struct {
	r     reading  // the reading the write went over
	n     int64    // the value the plan gave
	write bool     // the plan wrote (else it declined)
	st    *zk.Stat // the write's stat, when it succeeded
	sent  bool     // the write was handed to the connection
	err   error    // the write's error
}

// The states of readWrite's goroutine.
const (
	deciding int32 = iota // reading (and deciding)
	writing               // the write is being sent: its outcome belongs to the goroutine
	given                 // the caller gave up before the write: it must not be sent
)

// readWrite is a try's read, decision and write on one goroutine, on the
// client's connection, so that nothing comes between the read's answer and
// the write but the plan: the shorter that window, the likelier no other
// writer fits in it. fast is false, with nothing written, when the read
// failed, found data that is no counter or a missing node to make: slowTry
// does those.
// When ctx ends before the write is sent, it is not sent (ctx's error);
// when it ends while the write is in flight, the step has sent set and
// ctx's error.
func (c *Counter) readWrite(ctx context.Context, p plan) (s step, fast bool, err error) {
	conn, err := c.cl.Conn(ctx)
	if err == nil {
		err = ctx.Err() // Conn does not look at ctx when the connection is up
	}
	if err != nil {
		return step{}, false, err
	}
	type result struct {
		s    step
		fast bool
	}
	var state atomic.Int32
	var intent step // r and n, set before the state becomes writing
	ch := make(chan result, 1)
	go func() {
		var s step
		data, st, err := conn.Get(context.Background(), c.full)
		switch {
		case errors.Is(err, zk.ErrNoNode) && !p.create:
			s.r = reading{known: true, version: -1}
		case err != nil:
			ch <- result{}
			return
		default:
			n, ok := decode(data)
			if !ok {
				ch <- result{}
				return
			}
			s.r = reading{known: true, exists: true, value: n, version: st.Version}
		}
		if s.n, s.write = p.f(s.r); s.write {
			intent = s
			if !state.CompareAndSwap(deciding, writing) {
				return // the caller gave up: write nothing
			}
			s.st, s.err = conn.Set(context.Background(), c.full, encode(s.n), s.r.version)
			s.sent = true
		}
		ch <- result{s, true}
	}()
	select {
	case r := <-ch:
		return r.s, r.fast, nil
	case <-ctx.Done():
		if state.CompareAndSwap(deciding, given) {
			return step{}, false, ctx.Err() // nothing was sent
		}
		select {
		case r := <-ch: // answered just as ctx ended: that is the outcome
			return r.s, r.fast, nil
		default:
		}
		s := intent
		s.sent, s.err = true, ctx.Err()
		return s, true, nil
	}
}

// setOnce sends one conditional setData on the client's connection, never
// retried: a retry after a lost reply could apply the change twice, or find
// its own earlier write as another writer's (zk.ErrBadVersion). It returns
// as soon as ctx ends; sent reports whether the request was handed to the
// connection, after which any error but a server's answer leaves the
// outcome unknown.
func (c *Counter) setOnce(ctx context.Context, data []byte, version int32) (st *zk.Stat, sent bool, err error) {
	conn, err := c.cl.Conn(ctx)
	if err == nil {
		err = ctx.Err() // Conn does not look at ctx when the connection is up
	}
	if err != nil {
		return nil, false, err
	}
	if ctx.Done() == nil {
		st, err = conn.Set(context.Background(), c.full, data, version)
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
		st, err := conn.Set(context.Background(), c.full, data, version)
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
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case c.gate <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Counter) leave() { <-c.gate }
