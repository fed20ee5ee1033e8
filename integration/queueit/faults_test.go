package queueit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// shortSession is the session timeout of clients whose session a test
// expires by cutting their link.
const shortSession = 1500 * time.Millisecond

// recordDone returns a handler that records each item it is given in the
// item's removal: a sequential node done/<data>- holding who, so that a
// removal committed twice would leave two.
func recordDone(who string, also func(ctx context.Context, it *queue.Item)) queue.Handler {
	return func(ctx context.Context, it *queue.Item) error {
		if also != nil {
			also(ctx, it)
		}
		return it.CommitWith(&zk.CreateRequest{Path: "/done/" + string(it.Data) + "-", Data: []byte(who), Flags: zk.FlagSequence})
	}
}

// records is, for each item, who recorded it (done/ read with c).
func records(t *testing.T, c clientT) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, k := range itest.Children(t, c, "/done") {
		data, _, err := c.Get(itest.Ctx(t, 10*time.Second), "/done/"+k)
		require.NoError(t, err)
		item := k[:strings.LastIndexByte(k, '-')]
		out[item] = append(out[item], string(data))
	}
	return out
}

// mkdir makes p (and its parents).
func mkdir(t *testing.T, c clientT, p string) {
	t.Helper()
	_, err := c.Create(itest.Ctx(t, 10*time.Second), p, nil, 0, client.WithParents())
	require.NoError(t, err)
}

// TestConsumerSessionExpires: a lock-safe consumer takes an item and its
// link is cut past its session timeout (as if its process were killed
// mid-item). Its handler's ctx ends at the suspension; once the server
// expires the session, its lock goes, and the other consumer, idle on the
// line and with no put to wake it, takes the item and commits it. The
// first handler, returning nil all the same once the link is back, cannot
// commit (CommitLost): the item is recorded once, by the second.
func TestConsumerSessionExpires(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	admin := connect(t, shared, ns)
	mkdir(t, admin, "/done")
	link := itest.NewLink(t)
	ca := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: shortSession})
	a := newQueue(t, ca, "/q", queue.WithLockPath("/locks"))
	aEvents, stopA := a.Events()
	defer stopA()
	taken, ended, finish := make(chan struct{}), make(chan time.Time, 1), make(chan struct{})
	consumingLoop(t, a.Consume, recordDone("a", func(hctx context.Context, it *queue.Item) {
		close(taken)
		<-hctx.Done()
		ended <- time.Now()
		<-finish // a handler that goes on after its ctx ended
	}))
	require.NoError(t, a.Put(ctx, []byte("job")))
	itest.Await(t, taken, 10*time.Second, "the first consumer takes the item")

	b := newQueue(t, connect(t, shared, ns), "/q", queue.WithLockPath("/locks"))
	bGot := make(chan time.Time, 1)
	consumingLoop(t, b.Consume, recordDone("b", func(context.Context, *queue.Item) { bGot <- time.Now() }))
	itest.Eventually(t, 10*time.Second, "the second consumer on the idle line", func() bool {
		return len(itest.Children(t, admin, "/q-consumers/idle")) > 0
	})
	cut := time.Now()
	link.Cut()
	endedAt := itest.Await(t, ended, 10*time.Second, "the first handler's ctx ends")
	gotAt := itest.Await(t, bGot, 20*time.Second, "the second consumer takes the item")
	t.Logf("cut -> first handler's ctx ended %v, -> second took the item %v", endedAt.Sub(cut), gotAt.Sub(cut))
	require.True(t, endedAt.Before(gotAt), "the first handler learnt of the loss after the second took the item")
	requireEmpty(t, admin, "/q", "/locks")
	link.Restore()
	close(finish)
	ev := itest.Await(t, aEvents, 20*time.Second, "the first consumer's CommitLost")
	require.Equal(t, queue.CommitLost, ev.Type)
	require.ErrorIs(t, ev.Err, queue.ErrLost)
	require.Equal(t, map[string][]string{"job": {"b"}}, records(t, admin))
}

// TestCommitReplyLost: the reply to a lock-safe removal is lost (the
// connection drops once the server has committed it): the consumer finds
// its lock gone in the same session, takes the removal as made and does
// not send it again. The item is recorded once, the handler ran once, and
// no CommitLost is told.
func TestCommitReplyLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	admin := connect(t, shared, ns)
	mkdir(t, admin, "/done")
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link})
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	events, stop := q.Events()
	defer stop()
	var calls atomic.Int32
	consumingLoop(t, q.Consume, recordDone("a", func(context.Context, *queue.Item) { calls.Add(1) }))
	sess := c.Session().ID()
	fired := link.DropReplyTo(faultlink.OpMulti)
	require.NoError(t, newQueue(t, admin, "/q").Put(ctx, []byte("job")))
	itest.Await(t, fired, 10*time.Second, "the removal's reply dropped")
	requireEmpty(t, admin, "/q", "/locks")
	itest.Eventually(t, 10*time.Second, "recorded", func() bool { return len(records(t, admin)) == 1 })
	require.Equal(t, map[string][]string{"job": {"a"}}, records(t, admin))
	require.EqualValues(t, 1, calls.Load())
	require.Equal(t, sess, c.Session().ID(), "the same session")
	itest.Pending(t, events, 300*time.Millisecond, "an event")
}

// TestCommitCutWhileSent: the link fails while the removal is being
// written, so the server never gets it: the consumer finds its lock still
// there in the same session and sends the removal again. Recorded once.
func TestCommitCutWhileSent(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	admin := connect(t, shared, ns)
	mkdir(t, admin, "/done")
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link})
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	var calls atomic.Int32
	consumingLoop(t, q.Consume, recordDone("a", func(context.Context, *queue.Item) { calls.Add(1) }))
	fired := link.CutDuring(faultlink.OpMulti)
	require.NoError(t, newQueue(t, admin, "/q").Put(ctx, []byte("job")))
	itest.Await(t, fired, 10*time.Second, "the removal cut")
	requireEmpty(t, admin, "/q", "/locks")
	itest.Eventually(t, 10*time.Second, "recorded", func() bool { return len(records(t, admin)) == 1 })
	require.Equal(t, map[string][]string{"job": {"a"}}, records(t, admin))
	require.EqualValues(t, 1, calls.Load())
}

// TestLockReplyLost: the reply to a lock node's create is lost; the
// consumer reads the lock node back, finds it its own in its session, and
// goes on with the item: one call, recorded once, no lock left.
func TestLockReplyLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	admin := connect(t, shared, ns)
	mkdir(t, admin, "/done")
	mkdir(t, admin, "/locks")
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link})
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	var calls atomic.Int32
	consumingLoop(t, q.Consume, recordDone("a", func(context.Context, *queue.Item) { calls.Add(1) }))
	itest.Eventually(t, 10*time.Second, "the consumer on the idle line", func() bool {
		return len(itest.Children(t, admin, "/q-consumers/idle")) > 0 && len(itest.Children(t, admin, "/q-consumers/members")) > 0
	})
	fired := link.DropReplyTo(faultlink.OpCreate2)
	require.NoError(t, newQueue(t, admin, "/q").Put(ctx, []byte("job")))
	itest.Await(t, fired, 10*time.Second, "the lock's create reply dropped")
	requireEmpty(t, admin, "/q", "/locks")
	itest.Eventually(t, 10*time.Second, "recorded", func() bool { return len(records(t, admin)) == 1 })
	require.EqualValues(t, 1, calls.Load())
}

// TestPutReplyLost: a put whose create's reply is lost is not sent again:
// it returns a *MaybeAppliedError (ErrMaybeApplied, not a retryable
// connection error), and the queue holds the item once.
func TestPutReplyLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	admin := connect(t, shared, ns)
	link := itest.NewLink(t)
	q := newQueue(t, itest.Connect(t, shared, itest.Opts{NS: ns, Link: link}), "/q")
	require.NoError(t, q.Put(ctx, []byte("first")))
	link.DropReplyTo(faultlink.OpCreate2)
	err := q.Put(ctx, []byte("second"))
	var maybe *queue.MaybeAppliedError
	require.ErrorAs(t, err, &maybe)
	require.ErrorIs(t, err, queue.ErrMaybeApplied)
	require.NotErrorIs(t, err, zk.ErrConnectionClosed, "a retryable cause would invite a blind retry")
	require.Equal(t, "/q", maybe.Path)
	require.Len(t, itest.Children(t, admin, "/q"), 2, "the create was applied, once")
	require.NoError(t, q.Put(ctx, []byte("third")), "the next put goes through")
}

// TestRemoveReplyLost: without lock path, a removal's reply is lost: the
// consumer finds the item gone and does not hand it over (at most once: a
// MaybeLost event), and the next item is consumed as usual.
func TestRemoveReplyLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	admin := connect(t, shared, ns)
	link := itest.NewLink(t)
	q := newQueue(t, itest.Connect(t, shared, itest.Opts{NS: ns, Link: link}), "/q")
	events, stop := q.Events()
	defer stop()
	got := newConsumed()
	consumingLoop(t, q.Consume, got.handler())
	itest.Eventually(t, 10*time.Second, "the consumer on the idle line", func() bool {
		return len(itest.Children(t, admin, "/q-consumers/idle")) > 0
	})
	fired := link.DropReplyTo(faultlink.OpDelete)
	producer := newQueue(t, admin, "/q")
	require.NoError(t, producer.Put(ctx, []byte("lost")))
	itest.Await(t, fired, 10*time.Second, "the removal's reply dropped")
	ev := itest.Await(t, events, 10*time.Second, "MaybeLost")
	require.Equal(t, queue.MaybeLost, ev.Type)
	require.NoError(t, producer.Put(ctx, []byte("next")))
	require.Equal(t, []string{"next"}, got.wait(t, 1, 10*time.Second))
}

// TestServerKillEnsemble: on a 3-server ensemble, three lock-safe consumers (each
// a session of its own) take 300 items while the server the first one is
// connected to is killed and started again: every item is recorded exactly
// once.
func TestServerKillEnsemble(t *testing.T) {
	itest.NoLeaks(t)
	ensemble := zktest.ForTest(t, zktest.WithServers(3)) // its own: one of its servers is killed
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	admin := connect(t, ensemble, ns)
	mkdir(t, admin, "/done")
	const n = 300
	var first clientT
	var taken atomic.Int32
	for i := range 3 {
		c := connect(t, ensemble, ns)
		if i == 0 {
			first = c
		}
		q := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
		consumingLoop(t, q.Consume, recordDone(strconv.Itoa(i), func(context.Context, *queue.Item) {
			taken.Add(1)
			time.Sleep(2 * time.Millisecond)
		}))
	}
	producer := newQueue(t, admin, "/q")
	var wg sync.WaitGroup
	var mu sync.Mutex
	put, maybe := map[string]bool{}, map[string]bool{}
	wg.Go(func() {
		for i := range n {
			item := fmt.Sprintf("item%03d", i)
			err := producer.Put(ctx, []byte(item))
			mu.Lock()
			switch {
			case err == nil:
				put[item] = true
			case errors.Is(err, queue.ErrMaybeApplied):
				maybe[item] = true // the producer's server was the one killed
			default:
				t.Errorf("put %s: %v", item, err)
			}
			mu.Unlock()
		}
	})
	itest.Eventually(t, 30*time.Second, "a third consumed", func() bool { return taken.Load() >= n/3 })
	conn, err := first.Conn(ctx)
	require.NoError(t, err)
	victim := slices.Index(ensemble.Addrs(), conn.Server())
	require.GreaterOrEqual(t, victim, 0)
	require.NoError(t, ensemble.KillServer(ctx, victim))
	time.Sleep(time.Second)
	require.NoError(t, ensemble.StartServer(ctx, victim))
	wg.Wait()
	requireEmpty(t, admin, "/q", "/locks")
	recs := records(t, admin)
	mu.Lock()
	defer mu.Unlock()
	for item := range put {
		require.Len(t, recs[item], 1, "item %s recorded by %v", item, recs[item])
	}
	for item, by := range recs {
		require.True(t, put[item] || maybe[item], "item %s recorded but never put", item)
		require.Len(t, by, 1, "item %s recorded by %v", item, by)
	}
	t.Logf("%d items put, %d maybe put (%d of them recorded)", len(put), len(maybe), len(recs)-len(put))
	require.Greater(t, len(put), n/2)
}
