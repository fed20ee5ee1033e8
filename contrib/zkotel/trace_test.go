package zkotel

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// spanNamed is the one recorded span called name.
func spanNamed(tb testing.TB, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	tb.Helper()
	var found []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("%d spans %q among %d", len(found), name, len(spans))
	}
	return found[0]
}

// attr is the value of a span's attribute k, "" without it.
func attr(s tracetest.SpanStub, k attribute.Key) string {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value.String()
		}
	}
	return ""
}

// TestSpansNest: an acquire inside a parent span makes a child of it, and
// what the wait does under the context the hook returned nests under the
// acquire span; the outcome ends the span with its attribute and status.
// Each way in: the hook called directly, and the client's own reporting as
// the recipes call it.
func TestSpansNest(t *testing.T) {
	for _, via := range []string{"hook", "StartAcquire"} {
		t.Run(via, func(t *testing.T) {
			r := newRig(t)
			h := r.t.Hooks()
			tracer := r.tp.Tracer("app")
			ctx, parent := tracer.Start(context.Background(), "handle job")

			var wctx context.Context
			var done func(error)
			if via == "hook" {
				var out func(client.AcquireOutcome)
				wctx, out = h.Acquire(ctx, client.Acquisition{Recipe: client.RecipeMutex, Path: "/locks/job"})
				done = func(err error) { out(client.AcquireOutcome{Wait: time.Millisecond, Err: err}) }
			} else {
				wctx, done = itest.StartAcquire(h, ctx, client.RecipeMutex, "/locks/job")
			}
			_, work := tracer.Start(wctx, "wait work") // what the wait itself traces
			work.End()
			done(nil)
			parent.End()

			spans := r.spans.GetSpans()
			p, acq, w := spanNamed(t, spans, "handle job"), spanNamed(t, spans, "zkrecipes.acquire mutex"), spanNamed(t, spans, "wait work")
			if acq.Parent.SpanID() != p.SpanContext.SpanID() || acq.SpanContext.TraceID() != p.SpanContext.TraceID() {
				t.Errorf("acquire span's parent %v, want the caller's span %v", acq.Parent.SpanID(), p.SpanContext.SpanID())
			}
			if w.Parent.SpanID() != acq.SpanContext.SpanID() {
				t.Errorf("the wait's work has parent %v, want the acquire span %v", w.Parent.SpanID(), acq.SpanContext.SpanID())
			}
			if acq.SpanKind != trace.SpanKindInternal {
				t.Errorf("kind %v", acq.SpanKind)
			}
			if attr(acq, AttrRecipe) != "mutex" || attr(acq, AttrPath) != "/locks/job" || attr(acq, AttrOutcome) != OutcomeAcquired {
				t.Errorf("attributes %v", acq.Attributes)
			}
			if acq.Status.Code != codes.Unset {
				t.Errorf("status %v after an acquire", acq.Status)
			}
			if acq.EndTime.Before(acq.StartTime) || acq.StartTime.Before(p.StartTime) || acq.EndTime.After(p.EndTime) {
				t.Errorf("acquire span %v..%v outside its parent's %v..%v", acq.StartTime, acq.EndTime, p.StartTime, p.EndTime)
			}
		})
	}
}

// TestSpanOutcomes: a failed wait sets the status Error and records the
// error; a cancelled one (its caller's context ended) and a busy one (a
// try that found the holding taken) keep the status Unset; without a
// parent the span is a root.
func TestSpanOutcomes(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	boom := errors.New("zk: not authenticated")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		ctx    context.Context
		recipe string
		err    error
	}{
		{context.Background(), client.RecipeWriteLock, boom},
		{ended, client.RecipeLatch, fmt.Errorf("await leadership: %w", context.Canceled)},
		{ended, client.RecipeSemaphore, context.DeadlineExceeded},
		{context.Background(), client.RecipeSemaphoreMutex, semaphore.ErrNoLeases},
	} {
		_, done := itest.StartAcquire(h, c.ctx, c.recipe, "/x")
		done(c.err)
	}
	spans := r.spans.GetSpans()
	failed := spanNamed(t, spans, "zkrecipes.acquire rwlock-write")
	if failed.Status.Code != codes.Error || failed.Status.Description != boom.Error() || attr(failed, AttrOutcome) != OutcomeFailed {
		t.Errorf("failed wait: status %v, outcome %q", failed.Status, attr(failed, AttrOutcome))
	}
	if len(failed.Events) != 1 || failed.Events[0].Name != "exception" {
		t.Errorf("failed wait: events %v, want the error recorded", failed.Events)
	}
	for name, outcome := range map[string]string{
		"zkrecipes.acquire latch":           OutcomeCancelled,
		"zkrecipes.acquire semaphore":       OutcomeCancelled,
		"zkrecipes.acquire semaphore-mutex": OutcomeBusy,
	} {
		s := spanNamed(t, spans, name)
		if s.Status.Code != codes.Unset || attr(s, AttrOutcome) != outcome || len(s.Events) != 0 {
			t.Errorf("%s: status %v, outcome %q, events %v", name, s.Status, attr(s, AttrOutcome), s.Events)
		}
		if s.Parent.IsValid() {
			t.Errorf("%s has a parent without one in its context", name)
		}
	}
}
