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
	s := t.recipe(a.Recipe, a.Path)
	start := time.Now()
	s.live.BeginWait(start)
	ctx, span := t.tracer.Start(ctx, s.spanName,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(append([]attribute.KeyValue{AttrRecipe.String(a.Recipe), AttrPath.String(a.Path)}, t.cfg.attrs...)...))
	return ctx, func(o client.AcquireOutcome) {
		s.live.EndWait(start)
		outcome := o.Label()
		span.SetAttributes(AttrOutcome.String(outcome))
		if outcome == OutcomeFailed {
			span.RecordError(o.Err)
			span.SetStatus(codes.Error, o.Err.Error())
		}
		t.wait.Record(ctx, o.Wait.Seconds(), s.wait(outcome).rec...)
		span.End()
	}
}

func (t *Telemetry) onHeld(h client.Holding) {
	s := t.recipe(h.Recipe, h.Path)
	s.live.BeginHold(h.Since)
}

func (t *Telemetry) onReleased(r client.Release) {
	s := t.recipe(r.Recipe, r.Path)
	s.live.EndHold(r.Since)
	ctx := context.Background()
	if r.Lost {
		t.hold.Record(ctx, r.Held.Seconds(), s.lostHold.rec...)
		t.lost.Add(ctx, 1, s.lost.add...)
		return
	}
	t.hold.Record(ctx, r.Held.Seconds(), s.released.rec...)
}

func (t *Telemetry) onCache(e client.CacheEventHook) {
	ctx := context.Background()
	if t.cacheTypes != nil {
		if m, ok := t.cacheTypes[e.Type]; ok {
			t.cacheEvents.Add(ctx, 1, m.add...)
			return
		}
	}
	key := seriesKey{kind: kindCache, name: e.Type}
	kv := []attribute.KeyValue{AttrCacheType.String(e.Type)}
	if t.cfg.ByPath {
		key.path = t.paths.Label(e.Root)
		kv = append(kv, AttrPath.String(key.path))
	}
	m, ok := t.series.Load(key)
	if !ok {
		m, _ = t.series.LoadOrStore(key, t.attrs(kv...))
	}
	t.cacheEvents.Add(ctx, 1, m.(measure).add...)
}

// seriesKey names the attribute sets of one recipe, or of one cache event
// type, with the path's AttrPath value when it is an attribute.
type seriesKey struct {
	kind int
	name string
	path string
}

const (
	kindRecipe = iota
	kindCache
)

// recipeSeries are the span name and the attribute sets of one recipe (and
// path, with WithPathAttribute), and what it has now, for the gauges.
type recipeSeries struct {
	spanName                          string
	acquired, busy, cancelled, failed measure
	released, lostHold, lost          measure

	base       measure // the recipe (and path) alone: the gauges'
	leadership bool    // its holdings are leaderships
	live       hookmetrics.Live
}

// isLeadership reports whether a recipe's holdings are leaderships.
func isLeadership(recipe string) bool {
	return recipe == client.RecipeLatch || recipe == client.RecipeLeader
}

func (s *recipeSeries) wait(outcome string) measure {
	switch outcome {
	case OutcomeAcquired:
		return s.acquired
	case OutcomeBusy:
		return s.busy
	case OutcomeCancelled:
		return s.cancelled
	}
	return s.failed
}

// recipe returns the series of a recipe, making them the first time.
func (t *Telemetry) recipe(name, path string) *recipeSeries {
	key := seriesKey{kind: kindRecipe, name: name}
	if t.cfg.ByPath {
		key.path = t.paths.Label(path)
	}
	if s, ok := t.series.Load(key); ok {
		return s.(*recipeSeries)
	}
	with := func(kv ...attribute.KeyValue) measure {
		kv = append(kv, AttrRecipe.String(name))
		if t.cfg.ByPath {
			kv = append(kv, AttrPath.String(key.path))
		}
		return t.attrs(kv...)
	}
	s := &recipeSeries{
		base:       with(),
		leadership: isLeadership(name),
		spanName:   "zkrecipes.acquire " + name,
		acquired:   with(AttrOutcome.String(OutcomeAcquired)),
		busy:       with(AttrOutcome.String(OutcomeBusy)),
		cancelled:  with(AttrOutcome.String(OutcomeCancelled)),
		failed:     with(AttrOutcome.String(OutcomeFailed)),
		released:   with(AttrEnded.String(EndedReleased)),
		lostHold:   with(AttrEnded.String(EndedLost)),
		lost:       with(),
	}
	got, _ := t.series.LoadOrStore(key, s)
	return got.(*recipeSeries)
}
