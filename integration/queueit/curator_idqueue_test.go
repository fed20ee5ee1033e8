package queueit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The ports of Curator's TestDistributedIdQueue, each on one server and on
// the ensemble.

func newIDQueue(t *testing.T, c clientT, path string, opts ...queue.Option) *queue.IDQueue {
	t.Helper()
	q, err := queue.NewID(c, path, opts...)
	require.NoError(t, err)
	closeAtEnd(t, q.Close)
	return q
}

// TestDeletingWithLock: while a lock-safe consumer holds an item, Remove of
// its id removes nothing.
func TestDeletingWithLock(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newIDQueue(t, c, queuePath, queue.WithLockPath("/locks"))
		consuming, release := make(chan struct{}), make(chan struct{})
		consumingLoop(t, q.Consume, func(context.Context, *queue.Item) error {
			close(consuming)
			<-release
			return nil
		})
		require.NoError(t, q.Put(ctx, "id", []byte("test")))
		itest.Await(t, consuming, 10*time.Second, "the consumer has it")
		n, err := q.Remove(ctx, "id")
		require.NoError(t, err)
		require.Zero(t, n, "removed an item a consumer holds")
		ok, err := q.Contains(ctx, "id")
		require.NoError(t, err)
		require.True(t, ok)
		close(release)
		requireEmpty(t, c, queuePath, "/locks")
	})
}

// TestOrdering: 100 items with random ids come out in put order, each
// with its id.
func TestOrdering(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newIDQueue(t, c, queuePath)
		var ids []string
		for range 100 {
			id := fmt.Sprint(rand.Float64())
			ids = append(ids, id)
			require.NoError(t, q.Put(ctx, id, []byte(id)))
		}
		got := newConsumed()
		consumingLoop(t, q.Consume, func(ctx context.Context, it *queue.Item) error {
			if it.ID != string(it.Data) {
				return fmt.Errorf("item %s has id %q", it.Data, it.ID)
			}
			got.add(string(it.Data))
			return nil
		})
		require.Equal(t, ids, got.wait(t, 100, 20*time.Second))
	})
}

// TestRequeuingWithLock: a handler that always fails leaves the item in
// the queue, requeued under its id.
func TestRequeuingWithLock(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		c := connect(t, cl, itest.Namespace(t))
		ctx := itest.Ctx(t, time.Minute)
		q := newIDQueue(t, c, queuePath, queue.WithLockPath("/locks"))
		events, stop := q.Events()
		defer stop()
		calls := make(chan struct{}, 100)
		consumingLoop(t, q.Consume, func(context.Context, *queue.Item) error {
			calls <- struct{}{}
			return errors.New("consumer failed") // so requeuing occurs
		})
		require.NoError(t, q.Put(ctx, "id", []byte("test")))
		itest.Await(t, calls, 10*time.Second, "the consumer has it")
		ev := itest.Await(t, events, 10*time.Second, "the requeue")
		require.Equal(t, queue.Requeued, ev.Type)
		ok, err := q.Contains(ctx, "id")
		require.NoError(t, err)
		require.True(t, ok, "the item is queued after its requeue")
		kids := itest.Children(t, c, queuePath)
		require.Len(t, kids, 1)
		require.True(t, strings.HasPrefix(kids[0], "queue-|id|"), kids[0])
	})
}

// TestIDQueueRemove: Remove takes every item of an id and none other, on a
// queue with and without lock path; '/' and '|' in ids are stored as '_'.
func TestIDQueueRemove(t *testing.T) {
	itest.NoLeaks(t)
	c := connect(t, shared, itest.Namespace(t))
	ctx := itest.Ctx(t, time.Minute)
	for _, opts := range [][]queue.Option{nil, {queue.WithLockPath("/locks")}} {
		path := fmt.Sprintf("/q%d", len(opts))
		q := newIDQueue(t, c, path, opts...)
		for _, id := range []string{"a", "b", "a", "a/b|c", "c"} {
			require.NoError(t, q.Put(ctx, id, []byte(id)))
		}
		n, err := q.Remove(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, 2, n)
		n, err = q.Remove(ctx, "a/b|c")
		require.NoError(t, err)
		require.Equal(t, 1, n)
		var ids []string
		for _, k := range itest.Children(t, c, path) {
			ids = append(ids, k[len("queue-|"):strings.LastIndexByte(k, '|')])
		}
		require.ElementsMatch(t, []string{"b", "c"}, ids)
		ok, err := q.Contains(ctx, "a")
		require.NoError(t, err)
		require.False(t, ok)
	}
	require.Empty(t, itest.Children(t, c, "/locks"))
}
