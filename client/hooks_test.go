package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
)

// TestHooksNil: a nil *Hooks and one without the callback do nothing and
// hand back the caller's context.
func TestHooksNil(t *testing.T) {
	ctx := context.Background()
	for _, h := range []*Hooks{nil, {}} {
		got, done := h.startAcquire(ctx, RecipeMutex, "/a")
		if got != ctx {
			t.Error("StartAcquire changed the context without a hook")
		}
		done(nil)
		h.held(RecipeMutex, "/a", time.Now())
		h.release(RecipeMutex, "/a", time.Now(), true)
		h.cache("/a", "NODE_CREATED")
		if h.requests() != nil {
			t.Error("a connection callback without a Request hook")
		}
	}
	if _, err := New(WithServers("127.0.0.1:1"), WithHooks(nil)); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("WithHooks(nil): %v, want zkrecipes.ErrInvalidArgument", err)
	}
}

type ctxKey struct{}

// TestHooksCalled: each helper calls its hook with what it was given, and
// StartAcquire's outcome carries the wait and the error.
func TestHooksCalled(t *testing.T) {
	var acq []Acquisition
	var outs []AcquireOutcome
	var helds []Holding
	var rels []Release
	var caches []CacheEventHook
	h := &Hooks{
		Acquire: func(ctx context.Context, a Acquisition) (context.Context, func(AcquireOutcome)) {
			acq = append(acq, a)
			return context.WithValue(ctx, ctxKey{}, "span"), func(o AcquireOutcome) { outs = append(outs, o) }
		},
		Held:       func(h Holding) { helds = append(helds, h) },
		Released:   func(r Release) { rels = append(rels, r) },
		CacheEvent: func(e CacheEventHook) { caches = append(caches, e) },
	}
	ctx, done := h.startAcquire(context.Background(), RecipeSemaphore, "/s")
	if ctx.Value(ctxKey{}) != "span" {
		t.Error("StartAcquire did not return the hook's context")
	}
	time.Sleep(time.Millisecond)
	done(context.Canceled)
	since := time.Now().Add(-3 * time.Second)
	h.held(RecipeLatch, "/l", since)
	h.release(RecipeLatch, "/l", since, true)
	h.cache("/c", "NODE_DELETED")
	if len(acq) != 1 || acq[0] != (Acquisition{Recipe: RecipeSemaphore, Path: "/s"}) {
		t.Errorf("acquisitions %+v", acq)
	}
	if len(outs) != 1 || outs[0].Wait <= 0 || !errors.Is(outs[0].Err, context.Canceled) {
		t.Errorf("outcomes %+v", outs)
	}
	if len(helds) != 1 || helds[0] != (Holding{Recipe: RecipeLatch, Path: "/l", Since: since}) {
		t.Errorf("holdings %+v", helds)
	}
	if len(rels) != 1 || rels[0].Since != since || rels[0].Held < 3*time.Second ||
		(rels[0] != Release{Recipe: RecipeLatch, Path: "/l", Since: since, Held: rels[0].Held, Lost: true}) {
		t.Errorf("releases %+v", rels)
	}
	if len(caches) != 1 || caches[0] != (CacheEventHook{Root: "/c", Type: "NODE_DELETED"}) {
		t.Errorf("cache events %+v", caches)
	}
}

// BenchmarkHooksAbsent is the cost of the reports on a client without
// hooks: what every acquire and release pays.
func BenchmarkHooksAbsent(b *testing.B) {
	var h *Hooks
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, done := h.startAcquire(ctx, RecipeMutex, "/a")
		done(nil)
		h.held(RecipeMutex, "/a", time.Time{})
		h.release(RecipeMutex, "/a", time.Time{}, false)
	}
}
