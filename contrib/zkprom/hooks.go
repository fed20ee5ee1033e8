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
	EndedReleased = "released" // its holder released it
	EndedLost     = "lost"     // it may be gone: connection suspended, session lost, node deleted
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
	s := m.recipe(a.Recipe, a.Path)
	start := time.Now()
	s.live.BeginWait(start)
	return ctx, func(o client.AcquireOutcome) {
		s.live.EndWait(start)
		s.wait(o.Label()).Observe(o.Wait.Seconds())
	}
}

func (m *Metrics) onHeld(h client.Holding) {
	s := m.recipe(h.Recipe, h.Path)
	s.live.BeginHold(h.Since)
}

func (m *Metrics) onReleased(r client.Release) {
	s := m.recipe(r.Recipe, r.Path)
	s.live.EndHold(r.Since)
	if r.Lost {
		s.lostHold.Observe(r.Held.Seconds())
		s.lost.Inc()
		return
	}
	s.released.Observe(r.Held.Seconds())
}

func (m *Metrics) onCache(e client.CacheEventHook) {
	if m.cacheTypes != nil {
		if c, ok := m.cacheTypes[e.Type]; ok {
			c.Inc()
			return
		}
	}
	key := seriesKey{kind: kindCache, name: e.Type}
	if m.cfg.ByPath {
		key.path = m.paths.Label(e.Root)
	}
	if c, ok := m.series.Load(key); ok {
		c.(prometheus.Counter).Inc()
		return
	}
	c, _ := m.series.LoadOrStore(key, m.cacheEvents.WithLabelValues(m.withPath(key.path, e.Type)...))
	c.(prometheus.Counter).Inc()
}

// seriesKey names the series of one recipe, or of one cache event type,
// with the path's label value when it is a label.
type seriesKey struct {
	kind int
	name string
	path string
}

const (
	kindRecipe = iota
	kindCache
)

// recipeSeries are the series of one recipe (and path, with WithPathLabel),
// and what it has now, for the gauges.
type recipeSeries struct {
	acquired, busy, cancelled, failed prometheus.Observer
	released, lostHold                prometheus.Observer
	lost                              prometheus.Counter

	labels     []string // recipe, and path with WithPathLabel
	leadership bool     // its holdings are leaderships
	live       hookmetrics.Live
}

func (s *recipeSeries) wait(outcome string) prometheus.Observer {
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

// recipe returns the series of a recipe, making them (every outcome's, at
// zero) the first time.
func (m *Metrics) recipe(name, path string) *recipeSeries {
	key := seriesKey{kind: kindRecipe, name: name}
	if m.cfg.ByPath {
		key.path = m.paths.Label(path)
	}
	if s, ok := m.series.Load(key); ok {
		return s.(*recipeSeries)
	}
	l := func(v ...string) []string { return m.withPath(key.path, append([]string{name}, v...)...) }
	s := &recipeSeries{
		labels:     l(),
		leadership: isLeadership(name),
		acquired:   m.wait.WithLabelValues(l(OutcomeAcquired)...),
		busy:       m.wait.WithLabelValues(l(OutcomeBusy)...),
		cancelled:  m.wait.WithLabelValues(l(OutcomeCancelled)...),
		failed:     m.wait.WithLabelValues(l(OutcomeFailed)...),
		released:   m.hold.WithLabelValues(l(EndedReleased)...),
		lostHold:   m.hold.WithLabelValues(l(EndedLost)...),
		lost:       m.lost.WithLabelValues(l()...),
	}
	got, _ := m.series.LoadOrStore(key, s)
	return got.(*recipeSeries)
}

// withPath returns the label values, with path (a label value of m.paths)
// last when it is a label.
func (m *Metrics) withPath(path string, values ...string) []string {
	if m.cfg.ByPath {
		return append(values, path)
	}
	return values
}
