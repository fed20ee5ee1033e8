package zkotel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// ScopeName is the instrumentation scope of the meter and the tracer.
const ScopeName = "github.com/go-zkrecipes/zkrecipes/contrib/zkotel"

// Telemetry holds the instruments and the tracer of one client and the
// hooks that feed them.
type Telemetry struct {
	cfg    config
	tracer trace.Tracer

	stateChanges metric.Int64Counter
	stateTime    metric.Float64Histogram
	state        metric.Int64ObservableGauge
	retries      metric.Int64Counter
	pending      metric.Int64ObservableUpDownCounter
	wait         metric.Float64Histogram
	hold         metric.Float64Histogram
	lost         metric.Int64Counter
	cacheEvents  metric.Int64Counter
	waiters      metric.Int64ObservableUpDownCounter
	holders      metric.Int64ObservableUpDownCounter
	leaders      metric.Int64ObservableUpDownCounter
	oldestHold   metric.Float64ObservableGauge
	oldestWait   metric.Float64ObservableGauge
	reqTime      metric.Float64Histogram
	reqErrors    metric.Int64Counter
	reg          metric.Registration

	current   atomic.Int64 // the client's State; 0 before the first
	nPending  atomic.Int64
	base      measure // the WithAttributes alone
	states    [len(hookmetrics.States)]measure
	recipes   *hookmetrics.Table[*hookmetrics.Recipe[recipeSeries]]
	cache     *hookmetrics.Table[measure]           // by event type
	ops       [len(hookmetrics.OpLabels)]opMeasures // read-only after New
	hooks     *client.Hooks
	closeOnce sync.Once
	closeErr  error
}

// measure is one attribute set, as the options of Add and of Record: made
// once, so that a measurement allocates no option slice.
type measure struct {
	add []metric.AddOption
	rec []metric.RecordOption
	obs []metric.ObserveOption
}

// New makes the instruments, the tracer and the hooks. It fails, with an
// error wrapping ErrInvalidOption, on a bad option, or with the meter's
// error when it cannot make an instrument.
func New(opts ...Option) (*Telemetry, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	t := &Telemetry{cfg: cfg, tracer: cfg.tracers.Tracer(ScopeName)}
	paths := cfg.NewPaths() // nil without WithPathAttribute
	t.recipes = hookmetrics.NewRecipes(paths, t.newRecipeSeries)
	t.cache = hookmetrics.NewTable(paths, t.newCacheMeasure, hookmetrics.CacheTypes[:]...)
	meter := cfg.meters.Meter(ScopeName)
	if err := t.instruments(meter); err != nil {
		return nil, fmt.Errorf("zkotel: %w", err)
	}
	t.base = t.attrs()
	for i, s := range hookmetrics.States {
		t.states[i] = t.attrs(AttrState.String(s.String()))
	}
	for i, op := range hookmetrics.OpLabels {
		t.ops[i].rec = t.attrs(AttrOp.String(op))
		for j, e := range hookmetrics.ErrorLabels {
			t.ops[i].errors[j] = t.attrs(AttrOp.String(op), AttrErrorType.String(e))
		}
	}
	t.hooks = t.newHooks()
	// Registered last: a reader may collect at once, and the callback reads
	// everything set above.
	t.reg, err = meter.RegisterCallback(t.observe, t.state, t.pending, t.waiters, t.holders, t.leaders, t.oldestHold, t.oldestWait)
	if err != nil {
		return nil, fmt.Errorf("zkotel: %w", err)
	}
	return t, nil
}

func (t *Telemetry) instruments(m metric.Meter) error {
	var err [16]error
	t.stateChanges, err[0] = m.Int64Counter("zkrecipes.session.state.changes", metric.WithUnit("{change}"),
		metric.WithDescription("State changes of the ZooKeeper client, by the state entered."))
	t.stateTime, err[1] = m.Float64Histogram("zkrecipes.session.state.duration", metric.WithUnit("s"),
		metric.WithDescription("Time the ZooKeeper client spent in a state, recorded when it left it, by that state."),
		metric.WithExplicitBucketBoundaries(t.cfg.State...))
	t.state, err[2] = m.Int64ObservableGauge("zkrecipes.session.state", metric.WithUnit("1"),
		metric.WithDescription("1 for the state the ZooKeeper client is in, 0 for the others."))
	t.retries, err[3] = m.Int64Counter("zkrecipes.retries", metric.WithUnit("{retry}"),
		metric.WithDescription("Failed ZooKeeper operations the retry policy tried again."))
	t.pending, err[4] = m.Int64ObservableUpDownCounter("zkrecipes.guaranteed_deletes.pending", metric.WithUnit("{delete}"),
		metric.WithDescription("Guaranteed deletes still being retried in the background."))
	t.wait, err[5] = m.Float64Histogram("zkrecipes.acquire.duration", metric.WithUnit("s"),
		metric.WithDescription("Time recipes waited for a lock, a lease or leadership, by recipe and outcome (acquired, cancelled, failed)."),
		metric.WithExplicitBucketBoundaries(t.cfg.Wait...))
	t.hold, err[6] = m.Float64Histogram("zkrecipes.hold.duration", metric.WithUnit("s"),
		metric.WithDescription("Time a lock, a lease or leadership was held, by recipe and how it ended (released, lost)."),
		metric.WithExplicitBucketBoundaries(t.cfg.Hold...))
	t.lost, err[7] = m.Int64Counter("zkrecipes.holdings.lost", metric.WithUnit("{holding}"),
		metric.WithDescription("Locks, leases and leaderships lost (connection suspended, session lost, node deleted) rather than released, by recipe."))
	t.cacheEvents, err[8] = m.Int64Counter("zkrecipes.cache.events", metric.WithUnit("{event}"),
		metric.WithDescription("Events published by caches, by type (NODE_CREATED, NODE_CHANGED, NODE_DELETED, INITIALIZED)."))
	t.waiters, err[9] = m.Int64ObservableUpDownCounter("zkrecipes.waiters", metric.WithUnit("{wait}"),
		metric.WithDescription("Waits for a lock, a lease or leadership under way now, by recipe."))
	t.holders, err[10] = m.Int64ObservableUpDownCounter("zkrecipes.holders", metric.WithUnit("{holding}"),
		metric.WithDescription("Locks and leases held now, by recipe (each lease of a semaphore counts)."))
	t.leaders, err[11] = m.Int64ObservableUpDownCounter("zkrecipes.leaders", metric.WithUnit("{leadership}"),
		metric.WithDescription("Leaderships held now, by election recipe (latch, leader)."))
	t.oldestHold, err[12] = m.Float64ObservableGauge("zkrecipes.holding.oldest.age", metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest lock, lease or leadership held now, by recipe; 0 when none."))
	t.oldestWait, err[13] = m.Float64ObservableGauge("zkrecipes.wait.oldest.age", metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest wait under way now, by recipe; 0 when none."))
	t.reqTime, err[14] = m.Float64Histogram("zkrecipes.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a request's write to its reply (or to the loss of its connection), by op, every outcome included."),
		metric.WithExplicitBucketBoundaries(t.cfg.Request...))
	t.reqErrors, err[15] = m.Int64Counter("zkrecipes.request.errors", metric.WithUnit("{request}"),
		metric.WithDescription("Requests that failed, by op and error.type (no_node, node_exists, bad_version, not_empty, no_auth, connection_loss, session_expired, closed, error)."))
	return errors.Join(err[:]...)
}

// attrs is the measure of kv and the WithAttributes.
func (t *Telemetry) attrs(kv ...attribute.KeyValue) measure {
	o := metric.WithAttributeSet(attribute.NewSet(append(kv, t.cfg.attrs...)...))
	return measure{add: []metric.AddOption{o}, rec: []metric.RecordOption{o}, obs: []metric.ObserveOption{o}}
}

// observe reports the gauges: the current state, the pending deletes, and
// each recipe's waits and holdings now.
func (t *Telemetry) observe(_ context.Context, o metric.Observer) error {
	cur := t.current.Load()
	for i, s := range t.states {
		v := int64(0)
		if int64(i)+1 == cur {
			v = 1
		}
		o.ObserveInt64(t.state, v, s.obs...)
	}
	if cur > int64(len(t.states)) { // a state New does not know of
		o.ObserveInt64(t.state, 1, t.attrs(AttrState.String(client.State(cur).String())).obs...)
	}
	o.ObserveInt64(t.pending, t.nPending.Load(), t.base.obs...)
	at := time.Now()
	t.recipes.Range(func(s *hookmetrics.Recipe[recipeSeries]) bool {
		n := s.Snapshot(at)
		held := t.holders
		if s.Leadership {
			held = t.leaders
		}
		o.ObserveInt64(t.waiters, int64(n.Waits), s.Series.base.obs...)
		o.ObserveInt64(held, int64(n.Holds), s.Series.base.obs...)
		o.ObserveFloat64(t.oldestHold, n.OldestHold.Seconds(), s.Series.base.obs...)
		o.ObserveFloat64(t.oldestWait, n.OldestWait.Seconds(), s.Series.base.obs...)
		return true
	})
	return nil
}

// Hooks returns the hooks that feed t, for client.WithHooks; the same ones
// on every call. Give them to one client.
func (t *Telemetry) Hooks() *client.Hooks { return t.hooks }

// Close stops reporting the gauges (it unregisters their callback from the
// meter). The hooks keep working; the instruments stay with the provider.
func (t *Telemetry) Close() error {
	t.closeOnce.Do(func() { t.closeErr = t.reg.Unregister() })
	return t.closeErr
}
