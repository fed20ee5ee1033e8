package zkprom

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestHooksConcurrent: recipes report from many goroutines at once while
// the registry is scraped; nothing is lost (and -race sees no race).
func TestHooksConcurrent(t *testing.T) {
	m, reg := newRegistered(t)
	h := m.Hooks()
	const goroutines, each = 8, 500
	recipes := []string{client.RecipeMutex, client.RecipeSemaphore, client.RecipeReadLock, client.RecipeLeader}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			r := recipes[g%len(recipes)]
			for i := range each {
				_, done := h.Acquire(context.Background(), client.Acquisition{Recipe: r, Path: "/p"})
				done(client.AcquireOutcome{Wait: time.Millisecond})
				h.Released(client.Release{Recipe: r, Path: "/p", Held: time.Millisecond, Lost: i%2 == 0})
				h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_CHANGED"})
				h.Retry(client.RetryHook{Attempt: 1})
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			if _, err := tryScrape(reg); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if got := testutil.ToFloat64(m.retries); got != goroutines*each {
		t.Errorf("retries %v, want %d", got, goroutines*each)
	}
	if got := testutil.ToFloat64(m.cacheEvents.WithLabelValues("NODE_CHANGED")); got != goroutines*each {
		t.Errorf("cache events %v, want %d", got, goroutines*each)
	}
	lost := 0.0
	for _, r := range recipes {
		lost += testutil.ToFloat64(m.lost.WithLabelValues(r))
	}
	if lost != goroutines*each/2 {
		t.Errorf("lost %v, want %d", lost, goroutines*each/2)
	}
}

// TestHooksAllocs: once a recipe has reported, the hooks allocate nothing
// but the outcome function an Acquire returns.
func TestHooksAllocs(t *testing.T) {
	m, _ := newRegistered(t)
	h := m.Hooks()
	ctx := context.Background()
	a := client.Acquisition{Recipe: client.RecipeMutex, Path: "/p"}
	rel := client.Release{Recipe: client.RecipeMutex, Path: "/p", Held: time.Second}
	st := client.StateHook{State: client.StateSuspended, Previous: client.StateConnected, InPrevious: time.Second}
	ev := client.CacheEventHook{Root: "/c", Type: "NODE_CREATED"}
	held := client.Holding{Recipe: client.RecipeMutex, Path: "/p", Since: time.Now()}
	rel.Since = held.Since
	req := client.RequestHook{Op: client.OpGetData, Duration: time.Millisecond}
	failed := client.RequestHook{Op: client.OpExists, Duration: time.Millisecond, Err: zk.ErrNoNode}
	for name, c := range map[string]struct {
		f   func()
		max float64
	}{
		"State":          {func() { h.State(st) }, 0},
		"Retry":          {func() { h.Retry(client.RetryHook{Attempt: 1}) }, 0},
		"DeletesPending": {func() { h.DeletesPending(1) }, 0},
		"Held+Released":  {func() { h.Held(held); h.Released(rel) }, 0},
		"Request":        {func() { h.Request(req) }, 0},
		"Request failed": {func() { h.Request(failed) }, 0},
		"CacheEvent":     {func() { h.CacheEvent(ev) }, 0},
		"Acquire":        {func() { _, done := h.Acquire(ctx, a); done(client.AcquireOutcome{Wait: time.Millisecond}) }, 1},
	} {
		c.f() // makes the recipe's series
		if got := testing.AllocsPerRun(200, c.f); got > c.max {
			t.Errorf("%s: %v allocations, want at most %v", name, got, c.max)
		}
	}
}

// BenchmarkHooks is the cost of one acquire, holding and release reported
// to the metrics.
func BenchmarkHooks(b *testing.B) {
	m, err := New()
	if err != nil {
		b.Fatal(err)
	}
	h := m.Hooks()
	ctx := context.Background()
	a := client.Acquisition{Recipe: client.RecipeMutex, Path: "/p"}
	b.ReportAllocs()
	for b.Loop() {
		_, done := h.Acquire(ctx, a)
		since := time.Now()
		h.Held(client.Holding{Recipe: client.RecipeMutex, Path: "/p", Since: since})
		done(client.AcquireOutcome{Wait: time.Millisecond})
		h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/p", Since: since, Held: time.Second})
	}
}

// BenchmarkRequest is the cost of one request reported to the metrics, a
// success and a failure.
func BenchmarkRequest(b *testing.B) {
	m, err := New()
	if err != nil {
		b.Fatal(err)
	}
	h := m.Hooks()
	for name, r := range map[string]client.RequestHook{
		"ok":      {Op: client.OpGetData, Duration: 300 * time.Microsecond},
		"no_node": {Op: client.OpExists, Duration: 300 * time.Microsecond, Err: zk.ErrNoNode},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.Request(r)
			}
		})
	}
}
