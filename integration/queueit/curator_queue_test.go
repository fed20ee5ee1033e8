package queueit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// The ports of Curator's TestDistributedQueue, one Go test per Java test,
// each on one server and on the ensemble. Curator's QUEUE_PATH is
// "/a/queue"; its serializer stores a string's bytes, as the Go tests put
// them.

const queuePath = "/a/queue"

// newQueue makes a queue at path on c, closed at cleanup.
func newQueue(t *testing.T, c clientT, path string, opts ...queue.Option) *queue.Queue {
	t.Helper()
	q, err := queue.New(c, path, opts...)
	require.NoError(t, err)
	closeAtEnd(t, q.Close)
	return q
}

// putAll puts "0".."n-1" (from first) in order.
func putAll(t *testing.T, ctx context.Context, q *queue.Queue, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		require.NoError(t, q.Put(ctx, []byte(strconv.Itoa(i))))
	}
}

// putParallel puts "0".."n-1" from 10 goroutines.
func putParallel(t *testing.T, ctx context.Context, q *queue.Queue, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range 10 {
		wg.Go(func() {
			for i := g; i < n; i += 10 {
				if err := q.Put(ctx, []byte(strconv.Itoa(i))); err != nil {
					t.Errorf("put %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// numbered is "0".."n-1".
func numbered(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// requireEmpty requires that no item and no lock node is left.
func requireEmpty(t *testing.T, c clientT, paths ...string) {
	t.Helper()
	for _, p := range paths {
		itest.Eventually(t, 10*time.Second, p+" empty", func() bool { return len(itest.Children(t, c, p)) == 0 })
	}
}

// TestRetryAfterFailure_Curator56 (CURATOR-56): a lock-safe consumer's
// handler fails the first time; the item is requeued and handed over again,
// and the requeued node's name is as long as the first (the name does not
// grow with each requeue).
func TestRetryAfterFailure_Curator56(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, queuePath, queue.WithLockPath("/lock"))
		events, stop := q.Events()
		defer stop()
		var mu sync.Mutex
		var names []string
		calls := make(chan struct{}, 10)
		consuming(t, func(cctx context.Context) error {
			return q.Consume(cctx, func(_ context.Context, it *queue.Item) error {
				mu.Lock()
				names = append(names, it.Node)
				first := len(names) == 1
				mu.Unlock()
				calls <- struct{}{}
				if first {
					return errors.New("something went wrong")
				}
				return nil
			})
		})
		require.NoError(t, q.Put(ctx, []byte("test")))
		itest.Await(t, calls, 10*time.Second, "first call")
		itest.Await(t, calls, 10*time.Second, "the call after the requeue")
		ev := itest.Await(t, events, 10*time.Second, "the requeue's event")
		require.Equal(t, queue.Requeued, ev.Type)
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, names, 2)
		require.NotEqual(t, names[0], names[1], "the requeued item is a new node")
		require.Len(t, names[1], len(names[0]), "name1 %s, name2 %s", names[0], names[1])
		requireEmpty(t, c, queuePath, "/lock")
	})
}

// TestCustomExecutor: 1,000 items on a lock-safe queue, consumed by four
// Consume calls of one handle at once (Curator's cached thread pool
// executor): every item is handed over exactly once.
func TestCustomExecutor(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, 2*time.Minute)
		const n = 1000
		q := newQueue(t, c, queuePath, queue.WithLockPath("/lock"))
		var mu sync.Mutex
		seen := map[string]int{}
		for range 4 {
			consuming(t, func(cctx context.Context) error {
				return q.Consume(cctx, func(_ context.Context, it *queue.Item) error {
					mu.Lock()
					seen[string(it.Data)]++
					mu.Unlock()
					return nil
				})
			})
		}
		putParallel(t, ctx, q, n)
		itest.Eventually(t, time.Minute, "1,000 items consumed", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(seen) == n
		})
		mu.Lock()
		for k, v := range seen {
			require.Equal(t, 1, v, "item %s handed over %d times", k, v)
		}
		mu.Unlock()
		requireEmpty(t, c, queuePath, "/lock")
	})
}

// TestPutListener: Curator's put listener fires once per completed put;
// here Put returns once its item is in the queue, so each returned Put
// has made its node; a consumer then gets the ten in order.
func TestPutListener(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, queuePath)
		for i := range 10 {
			require.NoError(t, q.Put(ctx, []byte(strconv.Itoa(i))))
			require.Len(t, itest.Children(t, c, queuePath), i+1, "put %d returned before its node was made", i)
			n, err := q.Len(ctx)
			require.NoError(t, err)
			require.Equal(t, i+1, n)
		}
		got := newConsumed()
		consuming(t, func(cctx context.Context) error { return q.Consume(cctx, got.handler()) })
		require.Equal(t, numbered(10), got.wait(t, 10, 10*time.Second))
	})
}

// TestErrorMode: a lock-safe handler that fails once gets the item again
// (Requeue, the default: two calls); with WithErrorMode(Delete) a failure
// removes the item: one call, and the queue is empty.
func TestErrorMode(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		for _, mode := range []queue.ErrorMode{queue.Requeue, queue.Delete} {
			path := "/" + mode.String()
			q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"), queue.WithErrorMode(mode))
			var count atomic.Int32
			done := make(chan struct{}, 10)
			consuming(t, func(cctx context.Context) error {
				return q.Consume(cctx, func(context.Context, *queue.Item) error {
					defer func() { done <- struct{}{} }()
					if count.Add(1) < 2 {
						return errors.New("fail")
					}
					return nil
				})
			})
			require.NoError(t, q.Put(ctx, []byte("1")))
			itest.Await(t, done, 10*time.Second, "first call")
			if mode == queue.Requeue {
				itest.Await(t, done, 10*time.Second, "the second call, after the requeue")
				require.EqualValues(t, 2, count.Load())
			} else {
				itest.Pending(t, done, 500*time.Millisecond, "a second call after a Delete")
				require.EqualValues(t, 1, count.Load(), "consumer should get called only once")
			}
			requireEmpty(t, c, path, path+"-locks")
		}
	})
}

// TestNoDuplicateProcessing: a producer puts 1,000 items, then four
// consumers, each with a session of its own, take them from a lock-safe
// queue: none is handed over twice, and all are.
func TestNoDuplicateProcessing(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		ns := itest.Namespace(t)
		ctx := itest.Ctx(t, 2*time.Minute)
		const n = 1000
		putParallel(t, ctx, newQueue(t, connect(t, cl, ns), queuePath), n)
		var mu sync.Mutex
		seen := map[string]int{}
		for range 4 {
			q := newQueue(t, connect(t, cl, ns), queuePath, queue.WithLockPath("/a/locks"))
			consuming(t, func(cctx context.Context) error {
				return q.Consume(cctx, func(_ context.Context, it *queue.Item) error {
					mu.Lock()
					seen[string(it.Data)]++
					mu.Unlock()
					return nil
				})
			})
		}
		itest.Eventually(t, time.Minute, "1,000 items consumed", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(seen) == n
		})
		mu.Lock()
		defer mu.Unlock()
		var dups []string
		for k, v := range seen {
			if v != 1 {
				dups = append(dups, fmt.Sprintf("%s x%d", k, v))
			}
		}
		require.Empty(t, dups, "items handed over more than once")
	})
}

// TestSafetyWithCrash: two lock-safe consumers; once more than ten items
// were taken, the first one's handler fails on every item ("a crash"):
// each is requeued and the second consumer takes it. All 100 items are
// taken, the first consumer's failed item by the second, and no item was
// taken by both.
func TestSafetyWithCrash(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		ns := itest.Namespace(t)
		ctx := itest.Ctx(t, 2*time.Minute)
		const n = 100
		var mu sync.Mutex
		taken := map[string]bool{}
		byFirst, bySecond := map[string]bool{}, map[string]bool{}
		var thrown atomic.Value
		first := newQueue(t, connect(t, cl, ns), queuePath, queue.WithLockPath("/a/locks"))
		consuming(t, func(cctx context.Context) error {
			return first.Consume(cctx, func(_ context.Context, it *queue.Item) error {
				mu.Lock()
				defer mu.Unlock()
				if len(taken) > 10 {
					thrown.CompareAndSwap(nil, string(it.Data))
					return errors.New("dummy") // simulate a crash
				}
				taken[string(it.Data)], byFirst[string(it.Data)] = true, true
				return nil
			})
		})
		second := newQueue(t, connect(t, cl, ns), queuePath, queue.WithLockPath("/a/locks"))
		consuming(t, func(cctx context.Context) error {
			return second.Consume(cctx, func(_ context.Context, it *queue.Item) error {
				mu.Lock()
				taken[string(it.Data)], bySecond[string(it.Data)] = true, true
				mu.Unlock()
				time.Sleep(time.Duration(len(it.Data)) * time.Millisecond)
				return nil
			})
		})
		putAll(t, ctx, newQueue(t, connect(t, cl, ns), queuePath), 0, n)
		itest.Eventually(t, time.Minute, "all items taken", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(taken) == n
		})
		mu.Lock()
		defer mu.Unlock()
		for _, s := range numbered(n) {
			require.True(t, taken[s], "item %s", s)
			require.False(t, byFirst[s] && bySecond[s], "item %s taken by both", s)
		}
		th, _ := thrown.Load().(string)
		require.NotEmpty(t, th, "the first consumer never failed")
		require.True(t, bySecond[th], "the failed item %s went to the second consumer", th)
	})
}

// TestSafetyBasic: ten items through a lock-safe queue come out in order.
func TestSafetyBasic(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, queuePath, queue.WithLockPath("/a/locks"))
		got := newConsumed()
		consuming(t, func(cctx context.Context) error { return q.Consume(cctx, got.handler()) })
		putAll(t, ctx, q, 0, 10)
		require.Equal(t, numbered(10), got.wait(t, 10, 10*time.Second))
		requireEmpty(t, c, queuePath, "/a/locks")
	})
}

// TestPutMulti: 100 items in one node come out in order, each with its
// index in the node.
func TestPutMulti(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, queuePath)
		var items [][]byte
		for _, s := range numbered(100) {
			items = append(items, []byte(s))
		}
		require.NoError(t, q.PutMulti(ctx, items...))
		require.Len(t, itest.Children(t, c, queuePath), 1, "one node")
		var mu sync.Mutex
		var idx []int
		got := newConsumed()
		consuming(t, func(cctx context.Context) error {
			return q.Consume(cctx, func(ctx context.Context, it *queue.Item) error {
				mu.Lock()
				idx = append(idx, it.Index)
				mu.Unlock()
				require.Equal(t, 100, it.Count)
				return got.handler()(ctx, it)
			})
		})
		require.Equal(t, numbered(100), got.wait(t, 100, 10*time.Second))
		mu.Lock()
		defer mu.Unlock()
		require.True(t, slices.IsSorted(idx) && idx[0] == 0 && idx[99] == 99)
	})
}

// TestMultiPutterSingleGetter: two producers put 50 items each at once;
// the consumer gets 100, none twice.
func TestMultiPutterSingleGetter(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, queuePath)
		got := newConsumed()
		consuming(t, func(cctx context.Context) error { return q.Consume(cctx, got.handler()) })
		var wg sync.WaitGroup
		wg.Go(func() { putAll(t, ctx, q, 0, 50) })
		wg.Go(func() { putAll(t, ctx, q, 50, 50) })
		wg.Wait()
		items := got.wait(t, 100, 10*time.Second)
		slices.SortFunc(items, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
		require.Equal(t, numbered(100), items, "no duplicates")
	})
}

// TestFlush: Curator's flushPuts waits for background puts. A Put here
// returns only once its create is answered: with the create held back on
// the link, Put waits (flush false), and returns with the item in the
// queue once it goes through (flush true).
func TestFlush(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		ns := itest.Namespace(t)
		link := itest.NewLink(t)
		c := itest.Connect(t, cl, itest.Opts{NS: ns, Link: link})
		admin := connect(t, cl, ns)
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, "/test")
		require.NoError(t, q.Put(ctx, []byte("0"))) // the queue's node exists
		fired, release := link.HoldRequest(faultlink.OpCreate2)
		done := make(chan error, 1)
		go func() { done <- q.Put(ctx, []byte("1")) }()
		itest.Await(t, fired, 10*time.Second, "the create held")
		itest.Pending(t, done, 500*time.Millisecond, "Put with its create held")
		require.Len(t, itest.Children(t, admin, "/test"), 1)
		release()
		require.NoError(t, itest.Await(t, done, 10*time.Second, "Put after the release"))
		require.Len(t, itest.Children(t, admin, "/test"), 2)
	})
}

// TestSimple: ten items come out in order.
func TestSimple(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, queuePath)
		got := newConsumed()
		consuming(t, func(cctx context.Context) error { return q.Consume(cctx, got.handler()) })
		putAll(t, ctx, q, 0, 10)
		require.Equal(t, numbered(10), got.wait(t, 10, 10*time.Second))
		requireEmpty(t, c, queuePath)
	})
}
