package zkotel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

func (t *Telemetry) newHooks() *client.Hooks {
	return &client.Hooks{
		State:          t.onState,
		Retry:          func(client.RetryHook) { t.retries.Add(context.Background(), 1, t.base.add...) },
		DeletesPending: func(n int) { t.nPending.Store(int64(n)) },
		Acquire:        t.onAcquire,
		Held:           t.onHeld,
		Released:       t.onReleased,
		CacheEvent:     t.onCache,
		Request:        t.onRequest,
	}
}

func (t *Telemetry) onState(h client.StateHook) {
	ctx := context.Background()
	if h.Previous != 0 {
		t.stateTime.Record(ctx, h.InPrevious.Seconds(), t.stateAttrs(h.Previous).rec...)
	}
	t.stateChanges.Add(ctx, 1, t.stateAttrs(h.State).add...)
	t.current.Store(int64(h.State))
}

// stateAttrs is the measure of s: made in New for the four states, made
// here for any other.
func (t *Telemetry) stateAttrs(s client.State) measure {
	if i, ok := hookmetrics.StateIndex(s); ok {
		return t.states[i]
	}
	return t.attrs(AttrState.String(s.String()))
}

// onAcquire starts the wait's span, a child of ctx's, and returns its
// context; the outcome ends it and records the wait.
func (t *Telemetry) onAcquire(ctx context.Context, a client.Acquisition) (context.Context, func(client.AcquireOutcome)) {
	s := t.recipes.Get(a.Recipe, a.Path)
	start := time.Now()
	s.BeginWait(start)
	ctx, span := t.tracer.Start(ctx, s.Series.spanName,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(append([]attribute.KeyValue{AttrRecipe.String(a.Recipe), AttrPath.String(a.Path)}, t.cfg.attrs...)...))
	return ctx, func(o client.AcquireOutcome) {
		s.EndWait(start)
		outcome := o.Label()
		span.SetAttributes(AttrOutcome.String(outcome))
		if outcome == OutcomeFailed {
			span.RecordError(o.Err)
			span.SetStatus(codes.Error, o.Err.Error())
		}
		t.wait.Record(ctx, o.Wait.Seconds(), s.Series.waits.Of(outcome).rec...)
		span.End()
	}
}

func (t *Telemetry) onHeld(h client.Holding) {
	t.recipes.Get(h.Recipe, h.Path).BeginHold(h.Since)
}

func (t *Telemetry) onReleased(r client.Release) {
	s := t.recipes.Get(r.Recipe, r.Path)
	s.EndHold(r.Since)
	ctx := context.Background()
	t.hold.Record(ctx, r.Held.Seconds(), s.Series.holds.Of(r.Lost).rec...)
	if r.Lost {
		t.lost.Add(ctx, 1, s.Series.lost.add...)
	}
}

func (t *Telemetry) onCache(e client.CacheEventHook) {
	t.cacheEvents.Add(context.Background(), 1, t.cache.Get(e.Type, e.Root).add...)
}

// recipeSeries are the span name and the attribute sets of one recipe (and
// path, with WithPathAttribute).
type recipeSeries struct {
	spanName string
	waits    hookmetrics.Outcomes[measure]
	holds    hookmetrics.Endings[measure]
	lost     measure
	base     measure // the recipe (and path) alone: the gauges'
}

// newRecipeSeries makes the attribute sets of a recipe, given its path's
// AttrPath value (hookmetrics.NewRecipes).
func (t *Telemetry) newRecipeSeries(name, path string) recipeSeries {
	with := func(kv ...attribute.KeyValue) measure {
		kv = append(kv, AttrRecipe.String(name))
		if t.cfg.ByPath {
			kv = append(kv, AttrPath.String(path))
		}
		return t.attrs(kv...)
	}
	return recipeSeries{
		spanName: "zkrecipes.acquire " + name,
		waits:    hookmetrics.NewOutcomes(func(o string) measure { return with(AttrOutcome.String(o)) }),
		holds:    hookmetrics.NewEndings(func(e string) measure { return with(AttrEnded.String(e)) }),
		lost:     with(),
		base:     with(),
	}
}

// newCacheMeasure makes the attribute set of a cache event type, given its
// root's AttrPath value (hookmetrics.NewTable).
func (t *Telemetry) newCacheMeasure(typ, path string) measure {
	kv := []attribute.KeyValue{AttrCacheType.String(typ)}
	if t.cfg.ByPath {
		kv = append(kv, AttrPath.String(path))
	}
	return t.attrs(kv...)
}
