package zkotel

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// TestBadOptions: each bad option is an error wrapping ErrInvalidOption.
func TestBadOptions(t *testing.T) {
	for name, opt := range map[string]Option{
		"nil option":              nil,
		"nil meter provider":      WithMeterProvider(nil),
		"nil tracer provider":     WithTracerProvider(nil),
		"no wait buckets":         WithWaitBuckets(),
		"decreasing hold buckets": WithHoldBuckets(1, 0.5),
		"repeated state bucket":   WithStateBuckets(1, 1),
		"NaN bucket":              WithWaitBuckets(math.NaN()),
		"+Inf bucket":             WithHoldBuckets(1, math.Inf(1)),
		"own attribute":           WithAttributes(AttrRecipe.String("x")),
		"empty attribute key":     WithAttributes(attribute.String("", "x")),
		"error.type attribute":    WithAttributes(AttrErrorType.String("x")),
		"no request buckets":      WithRequestBuckets(),
		"max paths 0":             WithMaxPaths(0),
		"max paths, no path":      WithMaxPaths(3),
	} {
		tel, err := New(opt)
		if !errors.Is(err, ErrInvalidOption) || tel != nil {
			t.Errorf("%s: New = %v, %v; want ErrInvalidOption", name, tel, err)
		}
	}
}

// TestGlobalProviders: without providers New uses the global ones (no-op
// by default), and the hooks work.
func TestGlobalProviders(t *testing.T) {
	tel, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	h := tel.Hooks()
	h.State(client.StateHook{State: client.StateConnected})
	ctx := context.Background()
	got, done := itest.StartAcquire(h, ctx, client.RecipeMutex, "/a")
	if got == nil {
		t.Fatal("nil context")
	}
	done(nil)
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/a", Held: time.Second})
}

// TestAttributesAndPath: WithAttributes reach every metric and span,
// WithPathAttribute puts the path on the recipes' metrics and the root on
// the cache's, and the buckets options replace the bounds.
func TestAttributesAndPath(t *testing.T) {
	client1 := attribute.String("zkrecipes.client", "orders")
	r := newRig(t, WithAttributes(client1), WithPathAttribute(), WithWaitBuckets(0.1, 1), WithHoldBuckets(10), WithStateBuckets(3))
	h := r.t.Hooks()
	h.State(client.StateHook{State: client.StateConnected})
	h.State(client.StateHook{State: client.StateSuspended, Previous: client.StateConnected, InPrevious: time.Second})
	h.Retry(client.RetryHook{Attempt: 1})
	h.DeletesPending(1)
	acquire(h, client.RecipeWriteLock, "/rw", 500*time.Millisecond, nil)
	acquire(h, client.RecipeWriteLock, "/other", 50*time.Millisecond, nil)
	h.Released(client.Release{Recipe: client.RecipeWriteLock, Path: "/rw", Held: 11 * time.Second, Lost: true})
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_CREATED"})
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_CREATED"})
	ms := r.collect(t)

	p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("rwlock-write"), AttrOutcome.String(OutcomeAcquired), AttrPath.String("/rw"), client1)
	if p.Count != 1 || len(p.Bounds) != 2 || bucket(t, p, 1) != 1 {
		t.Errorf("/rw acquired: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("rwlock-write"), AttrOutcome.String(OutcomeAcquired), AttrPath.String("/other"), client1); p.Count != 1 || bucket(t, p, 0.1) != 1 {
		t.Errorf("/other acquired: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.hold.duration", AttrRecipe.String("rwlock-write"), AttrEnded.String(EndedLost), AttrPath.String("/rw"), client1); p.Count != 1 || len(p.Bounds) != 1 || p.BucketCounts[1] != 1 {
		t.Errorf("/rw lost: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.session.state.duration", AttrState.String("Connected"), client1); len(p.Bounds) != 1 || p.BucketCounts[0] != 1 {
		t.Errorf("time Connected: %+v", p)
	}
	wantSum(t, ms, "zkrecipes.holdings.lost", 1, AttrRecipe.String("rwlock-write"), AttrPath.String("/rw"), client1)
	wantSum(t, ms, "zkrecipes.cache.events", 2, AttrCacheType.String("NODE_CREATED"), AttrPath.String("/c"), client1)
	wantSum(t, ms, "zkrecipes.session.state", 1, AttrState.String("Suspended"), client1)
	wantSum(t, ms, "zkrecipes.session.state.changes", 1, AttrState.String("Connected"), client1)
	wantSum(t, ms, "zkrecipes.retries", 1, client1)
	wantSum(t, ms, "zkrecipes.guaranteed_deletes.pending", 1, client1)
	for _, s := range r.spans.GetSpans() {
		if attr(s, "zkrecipes.client") != "orders" {
			t.Errorf("span %s without the client's attribute: %v", s.Name, s.Attributes)
		}
	}
}

// TestUnknownNames: a state, recipe or cache event type New does not know
// of still gets its points.
func TestUnknownNames(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	h.State(client.StateHook{State: client.State(9), Previous: client.StateConnected, InPrevious: time.Millisecond})
	acquire(h, "barrier", "/b", time.Millisecond, nil)
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_MOVED"})
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_MOVED"})
	ms := r.collect(t)
	wantSum(t, ms, "zkrecipes.session.state", 1, AttrState.String("State(9)"))
	wantSum(t, ms, "zkrecipes.session.state", 0, AttrState.String("Connected"))
	wantSum(t, ms, "zkrecipes.session.state.changes", 1, AttrState.String("State(9)"))
	wantSum(t, ms, "zkrecipes.cache.events", 2, AttrCacheType.String("NODE_MOVED"))
	if p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("barrier"), AttrOutcome.String(OutcomeAcquired)); p.Count != 1 {
		t.Errorf("barrier: %+v", p)
	}
	spanNamed(t, r.spans.GetSpans(), "zkrecipes.acquire barrier")
}

// TestClose: after Close the gauges are no longer observed; Close twice is
// fine.
func TestClose(t *testing.T) {
	r := newRig(t)
	r.t.Hooks().DeletesPending(4)
	wantSum(t, r.collect(t), "zkrecipes.guaranteed_deletes.pending", 4)
	if err := r.t.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.t.Close(); err != nil {
		t.Fatal(err)
	}
	if m, ok := r.collect(t)["zkrecipes.guaranteed_deletes.pending"]; ok {
		if _, ok := sum(t, m); ok {
			t.Error("pending deletes still observed after Close")
		}
	}
}
