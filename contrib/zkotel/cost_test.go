package zkotel

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// TestHooksConcurrent: recipes report from many goroutines at once while
// the metrics are collected; nothing is lost (and -race sees no race).
func TestHooksConcurrent(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	const goroutines, each = 8, 300
	recipes := []string{client.RecipeMutex, client.RecipeSemaphore, client.RecipeReadLock, client.RecipeLeader}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rc := recipes[g%len(recipes)]
			for i := range each {
				_, done := itest.StartAcquire(h, context.Background(), rc, "/p")
				done(nil)
				h.Released(client.Release{Recipe: rc, Path: "/p", Held: time.Millisecond, Lost: i%2 == 0})
				h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_CHANGED"})
				h.Retry(client.RetryHook{Attempt: 1})
				h.DeletesPending(i)
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			var rm metricdata.ResourceMetrics
			if err := r.reader.Collect(context.Background(), &rm); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	ms := r.collect(t)
	wantSum(t, ms, "zkrecipes.retries", goroutines*each)
	wantSum(t, ms, "zkrecipes.cache.events", goroutines*each, AttrCacheType.String("NODE_CHANGED"))
	var lost int64
	for _, rc := range recipes {
		v, _ := sum(t, ms["zkrecipes.holdings.lost"], AttrRecipe.String(rc))
		lost += v
	}
	if lost != goroutines*each/2 {
		t.Errorf("lost %d, want %d", lost, goroutines*each/2)
	}
	if n := len(r.spans.GetSpans()); n != goroutines*each {
		t.Errorf("%d spans, want %d", n, goroutines*each)
	}
}

// TestHooksAllocs: once a recipe has reported, the metric-only hooks
// allocate nothing on the SDK's meter.
func TestHooksAllocs(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	rel := client.Release{Recipe: client.RecipeMutex, Path: "/p", Held: time.Second}
	st := client.StateHook{State: client.StateSuspended, Previous: client.StateConnected, InPrevious: time.Second}
	ev := client.CacheEventHook{Root: "/c", Type: "NODE_CREATED"}
	held := client.Holding{Recipe: client.RecipeMutex, Path: "/p", Since: time.Now()}
	rel.Since = held.Since
	req := client.RequestHook{Op: client.OpGetData, Duration: time.Millisecond}
	failed := client.RequestHook{Op: client.OpExists, Duration: time.Millisecond, Err: zk.ErrNoNode}
	for name, f := range map[string]func(){
		"State":          func() { h.State(st) },
		"Retry":          func() { h.Retry(client.RetryHook{Attempt: 1}) },
		"DeletesPending": func() { h.DeletesPending(1) },
		"Held+Released":  func() { h.Held(held); h.Released(rel) },
		"Request":        func() { h.Request(req) },
		"Request failed": func() { h.Request(failed) },
		"CacheEvent":     func() { h.CacheEvent(ev) },
	} {
		f() // makes the recipe's attribute sets
		if got := testing.AllocsPerRun(200, f); got > 0 {
			t.Errorf("%s: %v allocations, want none", name, got)
		}
	}
}

// BenchmarkHooks is the cost of one acquire (span and metric), holding and
// release on the SDK's providers.
func BenchmarkHooks(b *testing.B) {
	r := newRig(b)
	h := r.t.Hooks()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, done := itest.StartAcquire(h, ctx, client.RecipeMutex, "/p")
		since := time.Now()
		h.Held(client.Holding{Recipe: client.RecipeMutex, Path: "/p", Since: since})
		done(nil)
		h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/p", Since: since, Held: time.Second})
		if i%1024 == 0 {
			r.spans.Reset()
		}
	}
}

// BenchmarkRequest is the cost of one request reported to the SDK's
// meter, a success and a failure.
func BenchmarkRequest(b *testing.B) {
	r := newRig(b)
	h := r.t.Hooks()
	for name, q := range map[string]client.RequestHook{
		"ok":      {Op: client.OpGetData, Duration: 300 * time.Microsecond},
		"no_node": {Op: client.OpExists, Duration: 300 * time.Microsecond, Err: zk.ErrNoNode},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.Request(q)
			}
		})
	}
}
