package zkotel

import (
	"errors"
	"slices"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// ErrInvalidOption is wrapped by the error New returns for a bad option.
var ErrInvalidOption = errors.New("zkotel: invalid option")

// Option configures New.
type Option func(*config)

type config struct {
	hookmetrics.Config // buckets, by path, max paths, errors

	meters  metric.MeterProvider
	tracers trace.TracerProvider
	attrs   []attribute.KeyValue
}

// WithMeterProvider records the metrics through mp (default: the global
// otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp == nil {
			c.Fail("nil MeterProvider")
			return
		}
		c.meters = mp
	}
}

// WithTracerProvider makes the spans with tp (default: the global
// otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp == nil {
			c.Fail("nil TracerProvider")
			return
		}
		c.tracers = tp
	}
}

// WithAttributes adds attributes to every measurement and span: to tell
// apart the clients of one process, say attribute.String("zkrecipes.client",
// "orders"). Their keys must not be those of this package (AttrRecipe...).
func WithAttributes(kv ...attribute.KeyValue) Option {
	return func(c *config) {
		for _, a := range kv {
			if !a.Valid() || slices.Contains(ownKeys, a.Key) {
				c.Fail("attribute %q", a.Key)
			}
		}
		c.attrs = append(c.attrs, kv...)
	}
}

// WithWaitBuckets replaces DefaultWaitBuckets: bounds in seconds, strictly
// increasing.
func WithWaitBuckets(b ...float64) Option {
	return func(c *config) { c.Wait = c.Buckets("wait", b) }
}

// WithHoldBuckets replaces DefaultHoldBuckets: bounds in seconds, strictly
// increasing.
func WithHoldBuckets(b ...float64) Option {
	return func(c *config) { c.Hold = c.Buckets("hold", b) }
}

// WithStateBuckets replaces DefaultStateBuckets: bounds in seconds,
// strictly increasing.
func WithStateBuckets(b ...float64) Option {
	return func(c *config) { c.State = c.Buckets("state", b) }
}

// WithRequestBuckets replaces DefaultRequestBuckets: bounds in seconds,
// strictly increasing.
func WithRequestBuckets(b ...float64) Option {
	return func(c *config) { c.Request = c.Buckets("request", b) }
}

// WithPathAttribute adds the recipe's path (AttrPath) to the acquire, hold
// and lost metrics and the gauges, and the cache's root to the cache
// events. Each path is a series of its own: use it only when the
// application has a few fixed paths. Only the first DefaultMaxPaths
// distinct paths (WithMaxPaths to change it) are themselves; every later
// one is PathOther, so that a program making paths on the fly cannot grow
// the series without bound. Spans carry the path either way.
func WithPathAttribute() Option {
	return func(c *config) { c.ByPath = true }
}

// WithMaxPaths sets how many distinct paths WithPathAttribute puts in the
// metrics as themselves (default DefaultMaxPaths), at least 1; the rest
// are PathOther. It needs WithPathAttribute.
func WithMaxPaths(n int) Option {
	return func(c *config) { c.SetMaxPaths(n) }
}

func newConfig(opts []Option) (config, error) {
	c := config{Config: hookmetrics.NewConfig(ErrInvalidOption, DefaultWaitBuckets, DefaultHoldBuckets, DefaultStateBuckets, DefaultRequestBuckets)}
	hookmetrics.Apply(&c, &c.Config, opts)
	err := c.Done("WithPathAttribute")
	if c.meters == nil {
		c.meters = otel.GetMeterProvider()
	}
	if c.tracers == nil {
		c.tracers = otel.GetTracerProvider()
	}
	return c, err
}
