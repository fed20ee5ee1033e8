package queueit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The ports of Curator's TestBoundedDistributedQueue (maxItems with
// putInBackground false), each on one server and on the ensemble.

// TestBoundedMulti: four clients, each a lock-safe consumer (its handler
// sleeps 2 ms) and a producer of 100 items, on a queue of at most 10
// items: a watcher that sees every change of the queue's children never
// sees more than 10 + 4 - 1 (Curator asserts at most 10 × 4), and every
// item is consumed.
func TestBoundedMulti(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		ns := itest.Namespace(t)
		ctx := itest.Ctx(t, 2*time.Minute)
		const clients, max, items = 4, 10, 100
		watcher := connect(t, cl, ns)
		_, err := watcher.Create(ctx, "/queue", nil, 0, client.WithParents())
		require.NoError(t, err)
		var mu sync.Mutex
		var counts []int
		done := make(chan struct{})
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			for {
				kids, _, ev, err := watcher.ChildrenW(ctx, "/queue")
				if err != nil {
					return
				}
				mu.Lock()
				counts = append(counts, len(kids))
				mu.Unlock()
				select {
				case <-ev:
				case <-done:
					return
				}
			}
		}()
		consumed := newConsumed()
		var wg sync.WaitGroup
		for i := range clients {
			q := newQueue(t, connect(t, cl, ns), "/queue", queue.WithMaxItems(max), queue.WithLockPath("/locks"))
			consumingLoop(t, q.Consume, func(ctx context.Context, it *queue.Item) error {
				time.Sleep(2 * time.Millisecond)
				return consumed.handler()(ctx, it)
			})
			wg.Go(func() {
				for k := range items {
					if err := q.Put(ctx, fmt.Appendf(nil, "%d-%d", i, k)); err != nil {
						t.Errorf("put: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		consumed.wait(t, clients*items, time.Minute)
		close(done)
		<-watched
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, counts)
		require.LessOrEqual(t, slicesMax(counts), max+clients-1, "children seen: %v", counts)
		require.Greater(t, slicesMax(counts), 1, "the producers never got ahead: a weak test")
	})
}

// TestBoundedSimple: at most one item; the consumer takes "1" and blocks
// on it, "2" fills the queue, a put of "3" runs out of time (ErrFull);
// once the consumer goes on, 3, 4 and 5 go in and all five come out in
// order.
func TestBoundedSimple(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newQueue(t, c, "/queue", queue.WithMaxItems(1))
		got := newConsumed()
		started, release := make(chan struct{}, 10), make(chan struct{})
		consumingLoop(t, q.Consume, func(ctx context.Context, it *queue.Item) error {
			got.add(string(it.Data))
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		})
		put := func(s string, d time.Duration) error {
			pctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return q.Put(pctx, []byte(s))
		}
		require.NoError(t, put("1", 10*time.Second)) // ends up in the consumer
		itest.Await(t, started, 10*time.Second, "the consumer has 1")
		require.NoError(t, put("2", 10*time.Second)) // sits in the queue
		err := put("3", 500*time.Millisecond)
		require.ErrorIs(t, err, queue.ErrFull)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Len(t, itest.Children(t, c, "/queue"), 1, "the refused put made nothing")
		close(release)
		for _, s := range []string{"3", "4", "5"} {
			require.NoError(t, put(s, 10*time.Second))
		}
		require.Equal(t, []string{"1", "2", "3", "4", "5"}, got.wait(t, 5, 10*time.Second))
	})
}

func slicesMax(s []int) int {
	m := s[0]
	for _, v := range s {
		m = max(m, v)
	}
	return m
}
