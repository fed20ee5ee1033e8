package queueit

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The ports of Curator's TestDistributedPriorityQueue, each on one server
// and on the ensemble. Curator's consumer there is a BlockingQueueConsumer
// whose handler returns at once, so a whole listing is consumed before the
// test can put anything; the ports hold the handler on its first item
// instead, which makes what Curator's tests mean (an item put while the
// consumer is busy is sorted in) deterministic.

func newPriorityQueue(t *testing.T, c clientT, path string, opts ...queue.Option) *queue.PriorityQueue {
	t.Helper()
	q, err := queue.NewPriority(c, path, opts...)
	require.NoError(t, err)
	closeAtEnd(t, q.Close)
	return q
}

// gated is a handler that records items and holds its first call until
// the gate opens.
type gated struct {
	*consumed
	started chan struct{}
	gate    chan struct{}
}

func newGated() *gated {
	return &gated{consumed: newConsumed(), started: make(chan struct{}), gate: make(chan struct{})}
}

func (g *gated) handler(ctx context.Context, it *queue.Item) error {
	if g.len() == 0 {
		close(g.started)
		select {
		case <-g.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	g.add(string(it.Data))
	return nil
}

// TestMinItemsBeforeRefresh: with minItemsBeforeRefresh 3, a consumer
// busy with the first of ten items (priorities 10..19) takes at most 3
// items of its listing before a priority-1 item put meanwhile.
func TestMinItemsBeforeRefresh(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		const min = 3
		q := newPriorityQueue(t, c, "/test", queue.WithMinItemsBeforeRefresh(min))
		for i := range 10 {
			require.NoError(t, q.Put(ctx, int32(10+i), []byte(strconv.Itoa(i))))
		}
		g := newGated()
		consumingLoop(t, q.Consume, g.handler)
		itest.Await(t, g.started, 10*time.Second, "the first item")
		require.NoError(t, q.Put(ctx, 1, []byte("1000"))) // lower priority number: first
		close(g.gate)
		items := g.wait(t, 11, 20*time.Second)
		require.Equal(t, "0", items[0])
		count := 0
		for _, s := range items[1:] {
			if s == "1000" {
				break
			}
			count++
		}
		require.Less(t, count, min, "items taken after the first before the new one: %v", items)
	})
}

// TestSortingWhileTaking: with minItemsBeforeRefresh 0, ten items of
// priority 10; while the consumer is busy with item 0, an item of
// priority 1 is put: it comes right after.
func TestSortingWhileTaking(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newPriorityQueue(t, c, "/test", queue.WithMinItemsBeforeRefresh(0))
		for i := range 10 {
			require.NoError(t, q.Put(ctx, 10, []byte(strconv.Itoa(i))))
		}
		g := newGated()
		consumingLoop(t, q.Consume, g.handler)
		itest.Await(t, g.started, 10*time.Second, "the first item")
		require.NoError(t, q.Put(ctx, 1, []byte("1000")))
		close(g.gate)
		items := g.wait(t, 11, 20*time.Second)
		require.Equal(t, []string{"0", "1000", "1", "2"}, items[:4])
	})
}

// TestAdditions: items put while the consumer is busy with the first are
// taken in priority order: the priority-1 item before the nine of
// priority 10.
func TestAdditions(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newPriorityQueue(t, c, "/test", queue.WithMinItemsBeforeRefresh(1))
		g := newGated()
		consumingLoop(t, q.Consume, g.handler)
		require.NoError(t, q.Put(ctx, 10, []byte("10")))
		itest.Await(t, g.started, 10*time.Second, "the first item")
		require.NoError(t, q.Put(ctx, 1, []byte("1")))
		for range 9 {
			require.NoError(t, q.Put(ctx, 10, []byte("10")))
		}
		close(g.gate)
		items := g.wait(t, 11, 20*time.Second)
		requireAscending(t, items[1:])
	})
}

// TestPrioritySimple: while the consumer is held on an item of priority
// MinInt32, 100 items of random priorities are put; all 101 come out in
// priority order.
func TestPrioritySimple(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newPriorityQueue(t, c, "/test", queue.WithMinItemsBeforeRefresh(0))
		g := newGated()
		consumingLoop(t, q.Consume, g.handler)
		require.NoError(t, q.Put(ctx, math.MinInt32, []byte(strconv.Itoa(math.MinInt32))))
		itest.Await(t, g.started, 10*time.Second, "the first item")
		for range 100 {
			p := rand.Int32() - rand.Int32()
			require.NoError(t, q.Put(ctx, p, []byte(strconv.Itoa(int(p)))))
		}
		itest.WaitChildren(t, c, "/test", 100)
		close(g.gate)
		requireAscending(t, g.wait(t, 101, 30*time.Second))
	})
}

// requireAscending requires numbers in ascending order.
func requireAscending(t *testing.T, items []string) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		a, _ := strconv.Atoi(items[i-1])
		b, _ := strconv.Atoi(items[i])
		require.LessOrEqual(t, a, b, "value %d after %d: %v", b, a, items)
	}
}
