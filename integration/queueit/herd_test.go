package queueit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// listings is how many listings each link carried.
func listings(links []*faultlink.Link) []int64 {
	out := make([]int64, len(links))
	for i, l := range links {
		out[i] = l.Requests(faultlink.OpGetChildren) + l.Requests(faultlink.OpGetChildren2)
	}
	return out
}

// TestOnePutWakesOneConsumer: six idle Go consumers (each a session of its
// own, behind a link that counts its requests) of one lock-safe queue get
// 20 puts, one at a time, each consumed before the next. A put wakes the
// idle line's holder alone: it takes the item and hands the line on, so at
// most three consumers list anything per put, however many wait: the
// holder and the next one to watch in its place list the queue, and the
// waiter after that lists the idle line once (recipes/mutex's fast
// handoff). Each of Curator's consumers lists the queue again on every put
// and every removal.
func TestOnePutWakesOneConsumer(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	admin := connect(t, shared, ns)
	const consumers, puts = 6, 20
	var links []*faultlink.Link
	got := newConsumed()
	for range consumers {
		link := itest.NewLink(t)
		links = append(links, link)
		q := newQueue(t, itest.Connect(t, shared, itest.Opts{NS: ns, Link: link}), "/q", queue.WithLockPath("/locks"))
		consumingLoop(t, q.Consume, got.handler())
	}
	steady := func() {
		t.Helper()
		itest.Eventually(t, 10*time.Second, "every consumer idle, on the line", func() bool {
			return len(itest.Children(t, admin, "/q-consumers/idle")) == consumers &&
				len(itest.Children(t, admin, "/locks")) == 0 && len(itest.Children(t, admin, "/q")) == 0
		})
		time.Sleep(100 * time.Millisecond) // the last watch events' listings are in
	}
	producer := newQueue(t, admin, "/q")
	require.NoError(t, producer.Put(ctx, []byte("warm-up")))
	got.wait(t, 1, 10*time.Second)
	steady()
	woken, total := 0, int64(0)
	for i := range puts {
		before := listings(links)
		require.NoError(t, producer.Put(ctx, []byte("item")))
		got.wait(t, i+2, 10*time.Second)
		steady()
		listed := 0
		for k, n := range listings(links) {
			if n > before[k] {
				listed++
			}
			total += n - before[k]
		}
		require.LessOrEqual(t, listed, 3, "consumers that listed for put %d: %v -> %v", i, before, listings(links))
		woken += listed
	}
	t.Logf("%d idle consumers, %d puts: %.1f consumers listed per put, %.1f listings per put (of the queue and of the idle line)",
		consumers, puts, float64(woken)/puts, float64(total)/puts)
}
