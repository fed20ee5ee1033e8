package queueit

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// nothingUnder requires that the namespace holds no node at all, once the
// server has reaped the containers emptied (it checks every 500 ms here).
func nothingUnder(t *testing.T, c clientT) {
	t.Helper()
	itest.Eventually(t, 10*time.Second, "no node left", func() bool {
		n, err := c.CountDescendants(itest.Ctx(t, 10*time.Second), "/")
		if errors.Is(err, zk.ErrNoNode) {
			return true
		}
		require.NoError(t, err)
		return n == 0
	})
}

// TestBadInput: a nil handler, negative delays, a due time before 1970,
// empty ids, an empty PutMulti and ids that make no valid node name are
// typed errors, and nothing is left on the server.
func TestBadInput(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, 30*time.Second)
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	id := newIDQueue(t, c, "/id")
	p := newPriorityQueue(t, c, "/p")
	d := newDelayQueue(t, c, "/d")
	invalid := func(what string, err error) {
		t.Helper()
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, what)
	}
	invalid("Consume(nil)", q.Consume(ctx, nil))
	invalid("IDQueue.Consume(nil)", id.Consume(ctx, nil))
	invalid("PriorityQueue.Consume(nil)", p.Consume(ctx, nil))
	invalid("DelayQueue.Consume(nil)", d.Consume(ctx, nil))
	invalid("Put(-1s)", d.Put(ctx, -time.Second, []byte("x")))
	invalid("PutMulti(-1ms)", d.PutMulti(ctx, -time.Millisecond, []byte("x")))
	invalid("PutAt(zero time)", d.PutAt(ctx, time.Time{}, []byte("x")))
	invalid("PutAt(1969)", d.PutAt(ctx, time.Unix(-10, 0), []byte("x")))
	invalid("Put(empty id)", id.Put(ctx, "", []byte("x")))
	_, err := id.Remove(ctx, "")
	invalid("Remove(empty id)", err)
	_, err = id.Contains(ctx, "")
	invalid("Contains(empty id)", err)
	require.ErrorIs(t, id.Put(ctx, "a\x00b", []byte("x")), zkrecipes.ErrInvalidPath, "an id with NUL")
	invalid("PutMulti()", q.PutMulti(ctx))
	invalid("PriorityQueue.PutMulti()", p.PutMulti(ctx, 1))
	invalid("DelayQueue.PutMulti()", d.PutMulti(ctx, 0))
	nothingUnder(t, c)
}

// TestTooLarge: a put whose request would exceed the server's limit
// (jute.maxbuffer, 1 MiB by default) is a *TooLargeError before anything is
// sent, so the server never drops the connection over it and nothing is
// made; the largest item it takes goes in and comes out intact, on a
// lock-safe queue (whose requeue must fit too) and on Simple.
func TestTooLarge(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, time.Minute)
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	s := newSimple(t, c, "/s")
	mib := bytes.Repeat([]byte{'x'}, 1<<20)
	for what, err := range map[string]error{
		"Put":      q.Put(ctx, mib),
		"PutMulti": q.PutMulti(ctx, mib[:600<<10], mib[:600<<10]),
		"Offer":    s.Offer(ctx, mib),
	} {
		var tl *queue.TooLargeError
		require.ErrorAs(t, err, &tl, what)
		require.ErrorIs(t, err, queue.ErrTooLarge, what)
		require.Equal(t, queue.DefaultMaxBuffer, tl.Limit)
		require.Greater(t, tl.Size, tl.Limit)
	}
	nothingUnder(t, c)
	sess := c.Session().ID()

	// The largest a lock-safe put takes: just under the limit, less its
	// requeue's two deletes and this test's paths. A client that was never
	// started finds it without I/O: its puts are refused as too large
	// before they look for a connection.
	probe := unstarted(t, c.Namespace())
	pq, err := queue.New(probe, "/q", queue.WithLockPath("/locks"))
	require.NoError(t, err)
	ps, err := queue.NewSimple(probe, "/s")
	require.NoError(t, err)
	big := largest(func(n int) error { return pq.Put(ctx, mib[:n]) })
	require.Greater(t, big, 1<<20-4096, "the limit is not far below jute.maxbuffer")
	require.ErrorIs(t, q.Put(ctx, mib[:big+1]), queue.ErrTooLarge)
	require.NoError(t, q.Put(ctx, mib[:big]), "the server takes the largest put")
	got := make(chan int, 1)
	consumingLoop(t, q.Consume, func(_ context.Context, it *queue.Item) error {
		got <- len(it.Data)
		return nil
	})
	require.Equal(t, big, itest.Await(t, got, 20*time.Second, "the big item"))
	bigS := largest(func(n int) error { return ps.Offer(ctx, mib[:n]) })
	require.NoError(t, s.Offer(ctx, mib[:bigS]))
	data, err := s.Take(ctx)
	require.NoError(t, err)
	require.Len(t, data, bigS)
	require.Equal(t, sess, c.Session().ID(), "the server never dropped the session")
}

// unstarted is a client in namespace ns that was never started.
func unstarted(t *testing.T, ns string) clientT {
	t.Helper()
	c, err := client.New(client.WithServers(shared.Addrs()...), client.WithNamespace(ns))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// largest is, by bisection, the largest n for which probe(n) is not
// ErrTooLarge.
func largest(probe func(n int) error) int {
	lo, hi := 0, 1<<20 // probe(lo) fits, probe(hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if errors.Is(probe(mid), queue.ErrTooLarge) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// TestCommitWithMisuse: CommitWith on a queue without lock path is
// ErrNotLockSafe, a bad op or a call after the handler returned is
// ErrInvalidArgument, and the item is processed all the same.
func TestCommitWithMisuse(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, 30*time.Second)
	plain := newQueue(t, c, "/plain")
	safe := newQueue(t, c, "/safe", queue.WithLockPath("/locks"))
	errs := make(chan error, 10)
	items := make(chan *queue.Item, 10)
	consumingLoop(t, plain.Consume, func(_ context.Context, it *queue.Item) error {
		errs <- it.CommitWith(&zk.DeleteRequest{Path: "/x", Version: -1})
		return nil
	})
	consumingLoop(t, safe.Consume, func(_ context.Context, it *queue.Item) error {
		errs <- it.CommitWith("not an op")
		errs <- it.CommitWith(&zk.CreateRequest{Path: "relative"})
		items <- it
		return nil
	})
	require.NoError(t, plain.Put(ctx, []byte("a")))
	require.ErrorIs(t, itest.Await(t, errs, 10*time.Second, "CommitWith without lock path"), queue.ErrNotLockSafe)
	require.NoError(t, safe.Put(ctx, []byte("b")))
	require.ErrorIs(t, itest.Await(t, errs, 10*time.Second, "CommitWith of a string"), zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, itest.Await(t, errs, 10*time.Second, "CommitWith of a relative path"), zkrecipes.ErrInvalidPath)
	it := itest.Await(t, items, 10*time.Second, "the item")
	requireEmpty(t, c, "/safe", "/locks")
	require.ErrorIs(t, it.CommitWith(&zk.DeleteRequest{Path: "/x", Version: -1}), zkrecipes.ErrInvalidArgument, "after the handler returned")
}

// TestUseAfterClose: every call after Close returns an error that names
// the queue and wraps zkrecipes.ErrClosed, a second Close returns the first
// one's result, and a Consume running when Close came returns ErrClosed.
func TestUseAfterClose(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, 30*time.Second)
	q, err := queue.New(c, "/q", queue.WithLockPath("/locks"))
	require.NoError(t, err)
	running := make(chan error, 1)
	go func() { running <- q.Consume(ctx, func(context.Context, *queue.Item) error { return nil }) }()
	itest.Eventually(t, 10*time.Second, "the consumer registered", func() bool {
		return len(itest.Children(t, c, "/q-consumers/members")) == 1
	})
	require.NoError(t, q.Close(ctx))
	require.ErrorIs(t, itest.Await(t, running, 10*time.Second, "the running Consume"), zkrecipes.ErrClosed)
	require.NoError(t, q.Close(ctx), "a second Close returns the first one's result")
	for what, err := range map[string]error{
		"Put":      q.Put(ctx, []byte("x")),
		"PutMulti": q.PutMulti(ctx, []byte("x")),
		"Consume":  q.Consume(ctx, func(context.Context, *queue.Item) error { return nil }),
	} {
		require.ErrorIs(t, err, zkrecipes.ErrClosed, what)
		require.True(t, strings.Contains(err.Error(), "queue /q is closed"), "%s: %v", what, err)
	}
	_, err = q.Len(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
	ch, _ := q.Events()
	_, open := <-ch
	require.False(t, open, "Events after Close")
	s, err := queue.NewSimple(c, "/s")
	require.NoError(t, err)
	taking := make(chan error, 1)
	go func() { _, err := s.Take(ctx); taking <- err }()
	itest.Pending(t, taking, 300*time.Millisecond, "Take of an empty queue")
	require.NoError(t, s.Close(ctx))
	require.ErrorIs(t, itest.Await(t, taking, 10*time.Second, "the waiting Take"), zkrecipes.ErrClosed)
	_, err = s.Poll(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
	nothingUnder(t, c)
}
