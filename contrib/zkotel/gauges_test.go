package zkotel

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// num is the value of the point of the int64 sum, int64 gauge or float64
// gauge name with exactly the attributes kv; ok false when there is none.
func num(tb testing.TB, ms map[string]metricdata.Metrics, name string, kv ...attribute.KeyValue) (v float64, ok bool) {
	tb.Helper()
	m, found := ms[name]
	if !found {
		return 0, false
	}
	switch d := m.Data.(type) {
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			if p.Attributes.Len() == len(kv) && has(p.Attributes, kv...) {
				return p.Value, true
			}
		}
		return 0, false
	default:
		n, ok := sum(tb, m, kv...)
		return float64(n), ok
	}
}

// wantNum fails unless the point of name with the attributes kv is want.
func wantNum(tb testing.TB, ms map[string]metricdata.Metrics, name string, want float64, kv ...attribute.KeyValue) {
	tb.Helper()
	if got, ok := num(tb, ms, name, kv...); !ok || got != want {
		tb.Errorf("%s%v = %v (found %v), want %v", name, kv, got, ok, want)
	}
}

// TestGaugesScripted: the gauges count waits under way and holdings by
// their pairs of hooks, a lease of an AcquireN each, leaderships apart
// from locks; the oldest of each shows its age; an end with no begin
// changes nothing.
func TestGaugesScripted(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	sem, latch := AttrRecipe.String(client.RecipeSemaphore), AttrRecipe.String(client.RecipeLatch)

	_, done := itest.StartAcquire(h, context.Background(), client.RecipeSemaphore, "/s")
	_, done2 := itest.StartAcquire(h, context.Background(), client.RecipeSemaphore, "/s")
	old := time.Now().Add(-time.Hour)
	leases := []time.Time{old, time.Now(), time.Now()}
	for _, since := range leases {
		h.Held(client.Holding{Recipe: client.RecipeSemaphore, Path: "/s", Since: since})
	}
	done(nil)
	h.Held(client.Holding{Recipe: client.RecipeLatch, Path: "/l", Since: time.Now().Add(-3 * time.Hour)})
	ms := r.collect(t)
	wantNum(t, ms, "zkrecipes.holders", 3, sem)
	wantNum(t, ms, "zkrecipes.waiters", 1, sem)
	wantNum(t, ms, "zkrecipes.leaders", 1, latch)
	wantNum(t, ms, "zkrecipes.waiters", 0, latch)
	if d := ms["zkrecipes.holders"].Data.(metricdata.Sum[int64]); d.IsMonotonic {
		t.Error("holders is monotonic")
	}
	if age, _ := num(t, ms, "zkrecipes.holding.oldest.age", sem); age < 3600 || age > 3700 {
		t.Errorf("oldest lease's age %vs, want an hour", age)
	}
	if age, _ := num(t, ms, "zkrecipes.holding.oldest.age", latch); age < 3*3600 {
		t.Errorf("the leadership's age %vs, want 3 hours", age)
	}
	if age, _ := num(t, ms, "zkrecipes.wait.oldest.age", sem); age <= 0 || age > 60 {
		t.Errorf("the wait's age %vs", age)
	}
	if _, ok := num(t, ms, "zkrecipes.holders", latch); ok {
		t.Error("a leadership counted as a holding")
	}
	if _, ok := num(t, ms, "zkrecipes.leaders", sem); ok {
		t.Error("a lease counted as a leadership")
	}

	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: old, Held: time.Hour})
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: old, Held: time.Hour})
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: time.Now()})
	ms = r.collect(t)
	wantNum(t, ms, "zkrecipes.holders", 2, sem)
	if age, _ := num(t, ms, "zkrecipes.holding.oldest.age", sem); age > 60 {
		t.Errorf("oldest lease's age %vs after the hour-old one ended", age)
	}
	for _, since := range leases[1:] {
		h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: since, Lost: true})
	}
	done2(context.Canceled)
	ms = r.collect(t)
	wantNum(t, ms, "zkrecipes.holders", 0, sem)
	wantNum(t, ms, "zkrecipes.waiters", 0, sem)
	wantNum(t, ms, "zkrecipes.holding.oldest.age", 0, sem)
	wantNum(t, ms, "zkrecipes.wait.oldest.age", 0, sem)
	wantSum(t, ms, "zkrecipes.holdings.lost", 2, sem)
}

// TestPathCap: with WithPathAttribute, the first WithMaxPaths paths are
// themselves in the metrics and every later one PathOther; the spans keep
// the real path.
func TestPathCap(t *testing.T) {
	r := newRig(t, WithPathAttribute(), WithMaxPaths(2))
	h := r.t.Hooks()
	mutex := AttrRecipe.String(client.RecipeMutex)
	for i := range 5 {
		p := fmt.Sprintf("/locks/%d", i)
		h.Held(client.Holding{Recipe: client.RecipeMutex, Path: p, Since: time.Unix(int64(i), 0)})
		acquire(h, client.RecipeMutex, p, time.Millisecond, nil)
		h.CacheEvent(client.CacheEventHook{Root: p, Type: "NODE_CREATED"})
	}
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/4", Since: time.Unix(4, 0)})
	ms := r.collect(t)
	wantNum(t, ms, "zkrecipes.holders", 1, mutex, AttrPath.String("/locks/0"))
	wantNum(t, ms, "zkrecipes.holders", 1, mutex, AttrPath.String("/locks/1"))
	wantNum(t, ms, "zkrecipes.holders", 2, mutex, AttrPath.String(PathOther))
	wantSum(t, ms, "zkrecipes.cache.events", 3, AttrCacheType.String("NODE_CREATED"), AttrPath.String(PathOther))
	if p := hist(t, ms, "zkrecipes.acquire.duration", mutex, AttrOutcome.String(OutcomeAcquired), AttrPath.String(PathOther)); p.Count != 3 {
		t.Errorf("waits of the paths past the cap: %d, want 3", p.Count)
	}
	for _, m := range ms {
		if d, ok := m.Data.(metricdata.Sum[int64]); ok {
			for _, p := range d.DataPoints {
				if v, _ := p.Attributes.Value(AttrPath); v.AsString() == "/locks/3" {
					t.Errorf("%s: a path past the cap has a series of its own", m.Name)
				}
			}
		}
	}
	spans := r.spans.GetSpans()
	if last := spans[len(spans)-1]; !has(attribute.NewSet(last.Attributes...), AttrPath.String("/locks/4")) {
		t.Errorf("the last span's attributes %v: not its own path", last.Attributes)
	}
}

// TestRequests: each request is recorded by op; a failed one is counted by
// op and error.type too.
func TestRequests(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	for _, q := range []client.RequestHook{
		{Op: client.OpCreate, Duration: 300 * time.Microsecond},
		{Op: client.OpCreate, Duration: 2 * time.Millisecond, Err: zk.ErrNodeExists},
		{Op: client.OpGetData, Duration: 80 * time.Microsecond},
		{Op: client.OpExists, Duration: time.Millisecond, Err: zk.ErrNoNode},
		{Op: client.OpMulti, Duration: 20 * time.Second, Err: zk.ErrConnectionClosed},
		{Op: "someNewOp", Duration: time.Millisecond, Err: fmt.Errorf("x: %w", zk.ErrBadArguments)},
	} {
		h.Request(q)
	}
	ms := r.collect(t)
	create := hist(t, ms, "zkrecipes.request.duration", AttrOp.String(client.OpCreate))
	if create.Count != 2 || bucket(t, create, 0.0005) != 1 || bucket(t, create, 0.0025) != 1 {
		t.Errorf("create: %+v", create)
	}
	if m := ms["zkrecipes.request.duration"]; m.Unit != "s" {
		t.Errorf("request duration unit %q", m.Unit)
	}
	if p := hist(t, ms, "zkrecipes.request.duration", AttrOp.String(client.OpMulti)); p.BucketCounts[len(p.BucketCounts)-1] != 1 {
		t.Errorf("a 20 s multi not in the overflow bucket: %+v", p)
	}
	hist(t, ms, "zkrecipes.request.duration", AttrOp.String(client.OpOther))
	for op, e := range map[string]string{client.OpCreate: "node_exists", client.OpExists: "no_node", client.OpMulti: "connection_loss", client.OpOther: "error"} {
		wantSum(t, ms, "zkrecipes.request.errors", 1, AttrOp.String(op), AttrErrorType.String(e))
	}
	if d := ms["zkrecipes.request.errors"].Data.(metricdata.Sum[int64]); len(d.DataPoints) != 4 {
		t.Errorf("%d error points, want 4: %+v", len(d.DataPoints), d.DataPoints)
	}
}
