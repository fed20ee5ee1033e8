package zkprom

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// The values of the outcome label of zkrecipes_acquire_wait_seconds: the
// client's, by the rule of client.AcquireOutcome.Label.
const (
	OutcomeAcquired  = client.OutcomeAcquired  // the holding was granted
	OutcomeBusy      = client.OutcomeBusy      // a try found it taken (TryLock of a held lock, no lease free)
	OutcomeCancelled = client.OutcomeCancelled // the caller's context ended first
	OutcomeFailed    = client.OutcomeFailed    // the wait failed otherwise
)

// The values of the ended label of zkrecipes_hold_seconds.
const (
	EndedReleased = hookmetrics.EndedReleased // "released": its holder released it
	EndedLost     = hookmetrics.EndedLost     // "lost": it may be gone: connection suspended, session lost, node deleted
)

// Hooks returns the hooks that update m, for client.WithHooks; the same
// ones on every call. Give them to one client.
func (m *Metrics) Hooks() *client.Hooks { return m.hooks }

func (m *Metrics) newHooks() *client.Hooks {
	return &client.Hooks{
		State:          m.onState,
		Retry:          func(client.RetryHook) { m.retries.Inc() },
		DeletesPending: func(n int) { m.pending.Set(float64(n)) },
		Acquire:        m.onAcquire,
		Held:           m.onHeld,
		Released:       m.onReleased,
		CacheEvent:     m.onCache,
		Request:        m.onRequest,
	}
}

func (m *Metrics) onState(h client.StateHook) {
	if h.Previous != 0 {
		m.stateSet(h.Previous).time.Observe(h.InPrevious.Seconds())
	}
	cur := m.stateSet(h.State)
	cur.changes.Inc()
	for i := range m.states {
		if s := &m.states[i]; s.current != cur.current {
			s.current.Set(0)
		}
	}
	cur.current.Set(1)
}

// stateSet is the series of s: made in New for the four states, looked up
// in the vectors for any other.
func (m *Metrics) stateSet(s client.State) stateSeries {
	if i, ok := hookmetrics.StateIndex(s); ok {
		return m.states[i]
	}
	name := s.String()
	return stateSeries{
		changes: m.stateChanges.WithLabelValues(name),
		time:    m.stateTime.WithLabelValues(name),
		current: m.state.WithLabelValues(name),
	}
}

func (m *Metrics) onAcquire(ctx context.Context, a client.Acquisition) (context.Context, func(client.AcquireOutcome)) {
	s := m.recipes.Get(a.Recipe, a.Path)
	start := time.Now()
	s.BeginWait(start)
	return ctx, func(o client.AcquireOutcome) {
		s.EndWait(start)
		s.Series.waits.Of(o.Label()).Observe(o.Wait.Seconds())
	}
}

func (m *Metrics) onHeld(h client.Holding) {
	m.recipes.Get(h.Recipe, h.Path).BeginHold(h.Since)
}

func (m *Metrics) onReleased(r client.Release) {
	s := m.recipes.Get(r.Recipe, r.Path)
	s.EndHold(r.Since)
	s.Series.holds.Of(r.Lost).Observe(r.Held.Seconds())
	if r.Lost {
		s.Series.lost.Inc()
	}
}

func (m *Metrics) onCache(e client.CacheEventHook) {
	m.cache.Get(e.Type, e.Root).Inc()
}

// recipeSeries are the series of one recipe (and path, with
// WithPathLabel), every outcome's and ending's made at zero the first time
// it reports.
type recipeSeries struct {
	waits  hookmetrics.Outcomes[prometheus.Observer]
	holds  hookmetrics.Endings[prometheus.Observer]
	lost   prometheus.Counter
	labels []string // recipe, and path with WithPathLabel: the gauges'
}

// newRecipeSeries makes the series of a recipe, given its path label
// (hookmetrics.NewRecipes).
func (m *Metrics) newRecipeSeries(name, path string) recipeSeries {
	l := func(v ...string) []string { return m.withPath(path, append([]string{name}, v...)...) }
	return recipeSeries{
		waits:  hookmetrics.NewOutcomes(func(o string) prometheus.Observer { return m.wait.WithLabelValues(l(o)...) }),
		holds:  hookmetrics.NewEndings(func(e string) prometheus.Observer { return m.hold.WithLabelValues(l(e)...) }),
		lost:   m.lost.WithLabelValues(l()...),
		labels: l(),
	}
}

// newCacheCounter makes the counter of a cache event type, given its path
// label (hookmetrics.NewTable).
func (m *Metrics) newCacheCounter(typ, path string) prometheus.Counter {
	return m.cacheEvents.WithLabelValues(m.withPath(path, typ)...)
}

// withPath returns the label values, with path (a path label value)
// last when it is a label.
func (m *Metrics) withPath(path string, values ...string) []string {
	if m.cfg.ByPath {
		return append(values, path)
	}
	return values
}
