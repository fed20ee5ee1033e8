package queueit

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The ports of Curator's TestDistributedDelayQueue, each on one server and
// on the ensemble. Curator's items are longs: the ports put their decimal
// text.

func newDelayQueue(t *testing.T, c clientT, path string, opts ...queue.Option) *queue.DelayQueue {
	t.Helper()
	q, err := queue.NewDelay(c, path, opts...)
	require.NoError(t, err)
	closeAtEnd(t, q.Close)
	return q
}

// TestLateAddition: an item due in 24 days does not come out; one due now,
// put after it, does, and nothing more.
func TestLateAddition(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newDelayQueue(t, c, "/test")
		got := newConsumed()
		consumingLoop(t, q.Consume, got.handler())
		require.NoError(t, q.PutAt(ctx, time.Now().Add(time.Duration(1<<31-1)*time.Millisecond), []byte("1"))) // never comes out
		itest.Pending(t, got.more, 500*time.Millisecond, "the item due in 24 days")
		require.NoError(t, q.PutAt(ctx, time.Now(), []byte("2")))
		itest.Await(t, got.more, 10*time.Second, "the item due now")
		require.Equal(t, []string{"2"}, got.all())
		itest.Pending(t, got.more, 500*time.Millisecond, "another item")
	})
}

// TestDelayBasic: an item due in one second is not consumed after 100 ms,
// and is once due, no earlier.
func TestDelayBasic(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newDelayQueue(t, c, "/test")
		var at time.Time
		got := newConsumed()
		consumingLoop(t, q.Consume, func(ctx2 context.Context, it *queue.Item) error {
			at = time.Now()
			require.False(t, it.Due.IsZero())
			return got.handler()(ctx2, it)
		})
		due := time.Now().Add(time.Second)
		require.NoError(t, q.PutAt(ctx, due, []byte("1")))
		itest.Pending(t, got.more, 100*time.Millisecond, "the item before it is due")
		itest.Await(t, got.more, 10*time.Second, "the item once due")
		require.False(t, at.Before(due.Truncate(time.Millisecond)), "consumed %v before due", due.Sub(at))
	})
}

// TestDelaySimple: ten items due within 100 ms of one another, put at once
// in random order, come out in due order. (Curator's are due within 100 ms
// of their background puts; put in the foreground here, they are due from
// half a second on, so that all are in before the first is due.)
func TestDelaySimple(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newDelayQueue(t, c, "/test")
		got := newConsumed()
		consumingLoop(t, q.Consume, got.handler())
		start := time.Now().Add(500 * time.Millisecond)
		errs := make(chan error, 10)
		for range 10 {
			go func() {
				due := start.Add(time.Duration(rand.IntN(100)) * time.Millisecond)
				errs <- q.PutAt(ctx, due, []byte(strconv.FormatInt(due.UnixMilli(), 10)))
			}()
		}
		for range 10 {
			require.NoError(t, <-errs)
		}
		requireAscending64(t, got.wait(t, 10, 20*time.Second))
	})
}

// TestSorting: 1,000 items due one millisecond apart, from a second after
// the first put on, are put in random order by a producer-only queue; a
// consumer started after them gets them in due order, each within two
// seconds of the last.
func TestSorting(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, 2*time.Minute)
		const n = 1000
		put := newDelayQueue(t, c, "/test2")
		first := time.Now().Add(time.Second)
		order := rand.Perm(n)
		errs := make(chan error, n)
		for g := range 10 {
			go func() {
				for i := g; i < n; i += 10 {
					k := order[i]
					errs <- put.PutAt(ctx, first.Add(time.Duration(k)*time.Millisecond), []byte(strconv.Itoa(k)))
				}
			}()
		}
		for range n {
			require.NoError(t, <-errs)
		}
		got := newConsumed()
		consumingLoop(t, newDelayQueue(t, c, "/test2").Consume, got.handler())
		for i := range n {
			itest.Await(t, got.more, 2*time.Second, "item "+strconv.Itoa(i))
		}
		require.Equal(t, numbered(n), got.all())
	})
}

// requireAscending64 requires int64 texts in ascending order.
func requireAscending64(t *testing.T, items []string) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		a, _ := strconv.ParseInt(items[i-1], 10, 64)
		b, _ := strconv.ParseInt(items[i], 10, 64)
		require.LessOrEqual(t, a, b, "value %d after %d: %v", b, a, items)
	}
}
