package queueit

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// TestCommitRefusedNamesOp: a refused CommitWith is a *client.OpError in
// the Requeued event, by the index among the handler's ops (not the
// transaction's, whose first ops are the queue's own) and the path as
// given; the Warn line carries them as attributes; the item's Attempts
// counts its failures.
func TestCommitRefusedNamesOp(t *testing.T) {
	itest.NoLeaks(t)
	warn := newWarnings()
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t), Extra: []client.Option{client.WithLogger(slog.New(warn))}})
	ctx := itest.Ctx(t, time.Minute)
	mkdir(t, c, "/ok")
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"), queue.WithRequeueBackoff(20*time.Millisecond, 20*time.Millisecond))
	events, stop := q.Events()
	defer stop()
	var mu sync.Mutex
	var attempts []int
	var nodes []string
	consumingLoop(t, q.Consume, func(_ context.Context, it *queue.Item) error {
		mu.Lock()
		attempts, nodes = append(attempts, it.Attempts), append(nodes, it.Node)
		mu.Unlock()
		if err := it.CommitWith(&zk.CreateRequest{Path: "/ok/a-", Flags: zk.FlagSequence}); err != nil {
			return err
		}
		return it.CommitWith(&zk.SetDataRequest{Path: "/ok", Version: -1}, &zk.CreateRequest{Path: "/missing/b"})
	})
	require.NoError(t, q.Put(ctx, []byte("x")))
	for i := range 3 {
		ev := itest.Await(t, events, 10*time.Second, "a requeue")
		require.Equal(t, queue.Requeued, ev.Type, "%v", ev)
		var oe *client.OpError
		require.ErrorAs(t, ev.Err, &oe, "%v", ev)
		require.Equal(t, client.OpError{Index: 2, Op: "create", Path: "/missing/b", Err: zk.ErrNoNode}, *oe, "requeue %d", i)
		require.ErrorIs(t, ev.Err, zk.ErrNoNode)
	}
	mu.Lock()
	require.Equal(t, []int{0, 1, 2}, attempts[:3], "each take sees the failures before it")
	seen := append([]string(nil), nodes...)
	mu.Unlock()
	require.Empty(t, itest.Children(t, c, "/ok"), "the handler's other ops never committed")
	itest.Eventually(t, 10*time.Second, "three Warn lines", func() bool { return len(warn.about(seen)) >= 3 })
	for i, w := range warn.about(seen)[:3] {
		require.Equal(t, "2", w.attrs["op"], "%+v", w)
		require.Equal(t, "/missing/b", w.attrs["op_path"], "%+v", w)
		require.Equal(t, strconv.Itoa(i+1), w.attrs["attempt"], "%+v", w)
		require.Equal(t, seen[i], w.attrs["node"], "%+v", w)
	}
}

// TestGiveUp: with WithMaxAttempts(n), an item whose commit can never
// succeed is handed over n times, then given up: deleted (a Dropped event)
// or, with a dead-letter path, moved there with its data in one
// transaction with its removal (a DeadLettered event); a dead-letter path
// alone gives up after DefaultMaxAttempts. The queue and its locks are
// left empty, and a queue handle on the dead-letter path reads the item.
func TestGiveUp(t *testing.T) {
	cases := map[string]struct {
		opts     []queue.Option
		attempts int
		dead     bool // moved to /dead/q, not deleted
		id       bool // an IDQueue, not a Queue
	}{
		"delete after 3":                      {[]queue.Option{queue.WithMaxAttempts(3)}, 3, false, false},
		"dead letter after 3":                 {[]queue.Option{queue.WithMaxAttempts(3), queue.WithDeadLetterPath("/dead/q")}, 3, true, false},
		"dead letter at the first":            {[]queue.Option{queue.WithMaxAttempts(1), queue.WithDeadLetterPath("/dead/q")}, 1, true, false},
		"dead letter, default attempts":       {[]queue.Option{queue.WithDeadLetterPath("/dead/q"), queue.WithRequeueBackoff(10*time.Millisecond, 50*time.Millisecond)}, queue.DefaultMaxAttempts, true, false},
		"delete after 4, short backoff":       {[]queue.Option{queue.WithMaxAttempts(4), queue.WithRequeueBackoff(time.Millisecond, time.Millisecond)}, 4, false, false},
		"dead letter after 2, on an id queue": {[]queue.Option{queue.WithMaxAttempts(2), queue.WithDeadLetterPath("/dead/q")}, 2, true, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			itest.NoLeaks(t)
			warn := newWarnings()
			c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t), Extra: []client.Option{client.WithLogger(slog.New(warn))}})
			ctx := itest.Ctx(t, time.Minute)
			opts := append([]queue.Option{queue.WithLockPath("/locks")}, tc.opts...)
			var events <-chan queue.Event
			var put func() error
			var consume func(context.Context, queue.Handler) error
			if tc.id {
				q := newIDQueue(t, c, "/q", opts...)
				ev, stop := q.Events()
				defer stop()
				events, consume = ev, q.Consume
				put = func() error { return q.Put(ctx, "job-7", []byte("x")) }
			} else {
				q := newQueue(t, c, "/q", opts...)
				ev, stop := q.Events()
				defer stop()
				events, consume = ev, q.Consume
				put = func() error { return q.Put(ctx, []byte("x")) }
			}
			got := newCalls()
			consumingLoop(t, consume, func(_ context.Context, it *queue.Item) error {
				got.add(it.Node)
				return it.CommitWith(&zk.CreateRequest{Path: "/done/" + string(it.Data)})
			})
			require.NoError(t, put())

			var last queue.Event
			for i := 1; i <= tc.attempts; i++ {
				last = itest.Await(t, events, 20*time.Second, "the event of attempt "+strconv.Itoa(i))
				if i < tc.attempts {
					require.Equal(t, queue.Requeued, last.Type, "attempt %d: %v", i, last)
				}
			}
			require.ErrorIs(t, last.Err, queue.ErrMaxAttempts, "%v", last)
			require.ErrorIs(t, last.Err, zk.ErrNoNode, "%v", last)
			require.Contains(t, last.Err.Error(), "op 0 (create /done/x)", "%v", last)
			require.Len(t, got.all(), tc.attempts, "the handler's calls")
			itest.Pending(t, events, 300*time.Millisecond, "another event once the item was given up")
			require.Len(t, got.all(), tc.attempts, "no call after the item was given up")
			requireEmpty(t, c, "/q", "/locks")

			gaveUp := warn.about(got.all())
			require.NotEmpty(t, gaveUp)
			require.Contains(t, gaveUp[len(gaveUp)-1].msg, "last attempt", "%+v", gaveUp[len(gaveUp)-1])
			require.Equal(t, strconv.Itoa(tc.attempts), gaveUp[len(gaveUp)-1].attrs["attempt"])

			if !tc.dead {
				require.Equal(t, queue.Dropped, last.Type, "%v", last)
				ok, _, err := c.Exists(ctx, "/dead")
				require.NoError(t, err)
				require.False(t, ok, "no dead-letter path without WithDeadLetterPath")
				return
			}
			require.Equal(t, queue.DeadLettered, last.Type, "%v", last)
			kids := itest.Children(t, c, "/dead/q")
			require.Len(t, kids, 1)
			require.Equal(t, "/dead/q/"+kids[0], last.DeadLetter)
			require.Equal(t, got.all()[0][:len(got.all()[0])-10], kids[0][:len(kids[0])-10], "the node keeps its name's prefix")
			if tc.id {
				require.True(t, strings.HasPrefix(kids[0], "queue-|job-7|"), kids[0])
			}
			data, _, err := c.Get(ctx, last.DeadLetter)
			require.NoError(t, err)
			require.Equal(t, []byte{0, 1, 0, 1, 1, 0, 0, 0, 1, 'x', 2}, data, "the item in Curator's format, no count of attempts")

			// The dead-letter path is a queue of the same kind.
			dead := newQueue(t, c, "/dead/q")
			if tc.id {
				ids := newIDQueue(t, c, "/dead/q")
				n, err := ids.Remove(ctx, "job-7")
				require.NoError(t, err)
				require.Equal(t, 1, n, "the id survives the move")
				return
			}
			items := make(chan string, 1)
			consumingLoop(t, dead.Consume, func(_ context.Context, it *queue.Item) error {
				items <- string(it.Data)
				return nil
			})
			require.Equal(t, "x", itest.Await(t, items, 10*time.Second, "the dead letter"))
		})
	}
}

// TestGiveUpHandlerErrors: a handler error is a failed attempt too. A node
// of three items (PutMulti) whose second always fails is requeued, after
// its first, with the second and third only; given up, those two go to the
// dead-letter path, in the removal that commits the first item's op, which
// committed once.
func TestGiveUpHandlerErrors(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, time.Minute)
	mkdir(t, c, "/done")
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"), queue.WithMaxAttempts(3), queue.WithDeadLetterPath("/dead"))
	events, stop := q.Events()
	defer stop()
	var mu sync.Mutex
	var handed []string
	consumingLoop(t, q.Consume, func(_ context.Context, it *queue.Item) error {
		mu.Lock()
		handed = append(handed, string(it.Data))
		mu.Unlock()
		if string(it.Data) == "b" {
			return errFail
		}
		return it.CommitWith(&zk.CreateRequest{Path: "/done/" + string(it.Data) + "-", Flags: zk.FlagSequence})
	})
	require.NoError(t, q.PutMulti(ctx, []byte("a"), []byte("b"), []byte("c")))
	for i := 1; i <= 3; i++ {
		ev := itest.Await(t, events, 20*time.Second, "an event")
		if i < 3 {
			require.Equal(t, queue.Requeued, ev.Type, "%v", ev)
			require.ErrorIs(t, ev.Err, errFail)
			continue
		}
		require.Equal(t, queue.DeadLettered, ev.Type, "%v", ev)
		require.ErrorIs(t, ev.Err, queue.ErrMaxAttempts)
		require.ErrorIs(t, ev.Err, errFail)
	}
	mu.Lock()
	require.Equal(t, []string{"a", "b", "b", "b"}, handed, "the first item once, the second three times, the third never")
	mu.Unlock()
	done := itest.Children(t, c, "/done")
	require.Len(t, done, 1, "the first item's op committed once: %v", done)
	require.True(t, strings.HasPrefix(done[0], "a-"), done[0])
	requireEmpty(t, c, "/q", "/locks")
	dead := newQueue(t, c, "/dead")
	items := make(chan string, 2)
	consumingLoop(t, dead.Consume, func(_ context.Context, it *queue.Item) error {
		items <- string(it.Data)
		return nil
	})
	require.Equal(t, "b", itest.Await(t, items, 10*time.Second, "the dead letter's first item"))
	require.Equal(t, "c", itest.Await(t, items, 10*time.Second, "the dead letter's second item"))
}

// errFail is a handler's failure.
var errFail = errFailT{}

type errFailT struct{}

func (errFailT) Error() string { return "the handler failed" }

// TestCloseCutsBackoffShort: Close does not wait out a failed item's
// backoff (a minute here): the item is requeued at once, its failure
// counted, and the next consumer gets it with Attempts 1.
func TestCloseCutsBackoffShort(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, time.Minute)
	q := newQueue(t, c, "/q", queue.WithLockPath("/locks"), queue.WithRequeueBackoff(time.Minute, time.Minute))
	failed := make(chan struct{}, 1)
	consumingLoop(t, q.Consume, func(context.Context, *queue.Item) error {
		failed <- struct{}{}
		return errFail
	})
	require.NoError(t, q.Put(ctx, []byte("x")))
	itest.Await(t, failed, 10*time.Second, "the failing call")
	// A Close that lands before the consumer has judged the handler's
	// return takes the failure for a stop (not counted): let it count the
	// failure and start its minute-long backoff first.
	time.Sleep(500 * time.Millisecond)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, q.Close(cctx), "Close cuts the backoff short")
	requireEmpty(t, c, "/locks")
	again := newQueue(t, c, "/q", queue.WithLockPath("/locks"))
	attempts := make(chan int, 1)
	consumingLoop(t, again.Consume, func(_ context.Context, it *queue.Item) error {
		attempts <- it.Attempts
		return nil
	})
	require.Equal(t, 1, itest.Await(t, attempts, 10*time.Second, "the requeued item"))
}
