package zkprom

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// Metrics holds the Prometheus metrics of one client and the hooks that
// update them. It is a prometheus.Collector: register it on a registry.
type Metrics struct {
	cfg config

	stateChanges *prometheus.CounterVec
	stateTime    *prometheus.HistogramVec
	state        *prometheus.GaugeVec
	retries      prometheus.Counter
	pending      prometheus.Gauge
	wait         *prometheus.HistogramVec
	hold         *prometheus.HistogramVec
	lost         *prometheus.CounterVec
	cacheEvents  *prometheus.CounterVec
	reqTime      *prometheus.HistogramVec
	reqErrors    *prometheus.CounterVec
	gauges       *gauges

	states  [len(hookmetrics.States)]stateSeries
	ops     [len(hookmetrics.OpLabels)]opSeries
	recipes *hookmetrics.Table[*hookmetrics.Recipe[recipeSeries]]
	cache   *hookmetrics.Table[prometheus.Counter] // by event type
	hooks   *client.Hooks
}

// stateSeries are the series of one state.
type stateSeries struct {
	changes prometheus.Counter
	time    prometheus.Observer
	current prometheus.Gauge
}

// New makes the metrics (none registered yet: register the Metrics, a
// prometheus.Collector). It fails, with an error wrapping
// ErrInvalidOption, on a bad option or on a namespace or const label that
// makes an invalid metric.
func New(opts ...Option) (*Metrics, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	m := &Metrics{cfg: cfg}
	ns, cl := cfg.namespace, cfg.constLabels
	var path []string // the optional path label, after the others
	if cfg.ByPath {
		path = []string{"path"}
	}
	m.stateChanges = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Name: "session_state_changes_total", ConstLabels: cl,
		Help: "State changes of the ZooKeeper client, by the state entered.",
	}, []string{"state"})
	m.stateTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: ns, Name: "session_state_duration_seconds", ConstLabels: cl, Buckets: cfg.State,
		Help: "Time the ZooKeeper client spent in a state, observed when it left it, by that state.",
	}, []string{"state"})
	m.state = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: ns, Name: "session_state", ConstLabels: cl,
		Help: "1 for the state the ZooKeeper client is in, 0 for the others.",
	}, []string{"state"})
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: ns, Name: "retries_total", ConstLabels: cl,
		Help: "Failed ZooKeeper operations the retry policy tried again.",
	})
	m.pending = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: ns, Name: "guaranteed_deletes_pending", ConstLabels: cl,
		Help: "Guaranteed deletes still being retried in the background.",
	})
	m.wait = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: ns, Name: "acquire_wait_seconds", ConstLabels: cl, Buckets: cfg.Wait,
		Help: "Time recipes waited for a lock, a lease or leadership, by recipe and outcome (acquired, busy, cancelled, failed).",
	}, append([]string{"recipe", "outcome"}, path...))
	m.hold = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: ns, Name: "hold_seconds", ConstLabels: cl, Buckets: cfg.Hold,
		Help: "Time a lock, a lease or leadership was held, by recipe and how it ended (released, lost).",
	}, append([]string{"recipe", "ended"}, path...))
	m.lost = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Name: "holdings_lost_total", ConstLabels: cl,
		Help: "Locks, leases and leaderships lost (connection suspended, session lost, node deleted) rather than released, by recipe.",
	}, append([]string{"recipe"}, path...))
	m.cacheEvents = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Name: "cache_events_total", ConstLabels: cl,
		Help: "Events published by caches, by type (NODE_CREATED, NODE_CHANGED, NODE_DELETED, INITIALIZED).",
	}, append([]string{"type"}, path...))
	m.reqTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: ns, Name: "request_duration_seconds", ConstLabels: cl, Buckets: cfg.Request,
		Help: "Time from a request's write to its reply (or to the loss of its connection), by op (create, delete, getData...), every outcome included.",
	}, []string{"op"})
	m.reqErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: ns, Name: "request_errors_total", ConstLabels: cl,
		Help: "Requests that failed, by op and error (no_node, node_exists, bad_version, not_empty, no_auth, connection_loss, session_expired, closed, error).",
	}, []string{"op", "error"})
	m.gauges = newGauges(m, append([]string{"recipe"}, path...))

	// Reject a bad namespace or const label now, not at registration.
	if err := prometheus.NewPedanticRegistry().Register(m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	for i, s := range hookmetrics.States {
		name := s.String()
		m.states[i] = stateSeries{
			changes: m.stateChanges.WithLabelValues(name),
			time:    m.stateTime.WithLabelValues(name),
			current: m.state.WithLabelValues(name),
		}
	}
	paths := cfg.NewPaths() // nil without WithPathLabel
	m.recipes = hookmetrics.NewRecipes(paths, m.newRecipeSeries)
	m.cache = hookmetrics.NewTable(paths, m.newCacheCounter, hookmetrics.CacheTypes[:]...)
	m.hooks = m.newHooks()
	return m, nil
}

// Describe sends the descriptors of every metric (prometheus.Collector).
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the current value of every metric (prometheus.Collector).
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.stateChanges, m.stateTime, m.state, m.retries, m.pending, m.wait, m.hold, m.lost,
		m.cacheEvents, m.reqTime, m.reqErrors, m.gauges}
}
