package zkotel

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ErrInvalidOption is wrapped by the error New returns for a bad option.
var ErrInvalidOption = errors.New("zkotel: invalid option")

// Option configures New.
type Option func(*config)

type config struct {
	meters   metric.MeterProvider
	tracers  trace.TracerProvider
	attrs    []attribute.KeyValue
	wait     []float64
	hold     []float64
	state    []float64
	request  []float64
	pathAttr bool
	maxPaths int // 0: not set
	errs     []error
}

// WithMeterProvider records the metrics through mp (default: the global
// otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp == nil {
			c.errs = append(c.errs, fmt.Errorf("%w: nil MeterProvider", ErrInvalidOption))
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
			c.errs = append(c.errs, fmt.Errorf("%w: nil TracerProvider", ErrInvalidOption))
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
				c.errs = append(c.errs, fmt.Errorf("%w: attribute %q", ErrInvalidOption, a.Key))
			}
		}
		c.attrs = append(c.attrs, kv...)
	}
}

// WithWaitBuckets replaces DefaultWaitBuckets: bounds in seconds, strictly
// increasing.
func WithWaitBuckets(b ...float64) Option {
	return func(c *config) { c.wait = c.buckets("wait", b) }
}

// WithHoldBuckets replaces DefaultHoldBuckets: bounds in seconds, strictly
// increasing.
func WithHoldBuckets(b ...float64) Option {
	return func(c *config) { c.hold = c.buckets("hold", b) }
}

// WithStateBuckets replaces DefaultStateBuckets: bounds in seconds,
// strictly increasing.
func WithStateBuckets(b ...float64) Option {
	return func(c *config) { c.state = c.buckets("state", b) }
}

// WithRequestBuckets replaces DefaultRequestBuckets: bounds in seconds,
// strictly increasing.
func WithRequestBuckets(b ...float64) Option {
	return func(c *config) { c.request = c.buckets("request", b) }
}

// WithPathAttribute adds the recipe's path (AttrPath) to the acquire, hold
// and lost metrics and the gauges, and the cache's root to the cache
// events. Each path is a series of its own: use it only when the
// application has a few fixed paths. Only the first DefaultMaxPaths
// distinct paths (WithMaxPaths to change it) are themselves; every later
// one is PathOther, so that a program making paths on the fly cannot grow
// the series without bound. Spans carry the path either way.
func WithPathAttribute() Option {
	return func(c *config) { c.pathAttr = true }
}

// WithMaxPaths sets how many distinct paths WithPathAttribute puts in the
// metrics as themselves (default DefaultMaxPaths), at least 1; the rest
// are PathOther. It needs WithPathAttribute.
func WithMaxPaths(n int) Option {
	return func(c *config) {
		if n < 1 {
			c.errs = append(c.errs, fmt.Errorf("%w: WithMaxPaths(%d): at least 1", ErrInvalidOption, n))
			return
		}
		c.maxPaths = n
	}
}

// buckets checks b and returns a copy of it.
func (c *config) buckets(name string, b []float64) []float64 {
	if len(b) == 0 {
		c.errs = append(c.errs, fmt.Errorf("%w: no %s buckets", ErrInvalidOption, name))
		return nil
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) || (i > 0 && v <= b[i-1]) {
			c.errs = append(c.errs, fmt.Errorf("%w: %s buckets %v: not finite and strictly increasing", ErrInvalidOption, name, b))
			return nil
		}
	}
	return slices.Clone(b)
}

func newConfig(opts []Option) (config, error) {
	c := config{
		wait:    slices.Clone(DefaultWaitBuckets),
		hold:    slices.Clone(DefaultHoldBuckets),
		state:   slices.Clone(DefaultStateBuckets),
		request: slices.Clone(DefaultRequestBuckets),
	}
	for _, o := range opts {
		if o == nil {
			c.errs = append(c.errs, fmt.Errorf("%w: nil option", ErrInvalidOption))
			continue
		}
		o(&c)
	}
	switch {
	case c.maxPaths != 0 && !c.pathAttr:
		c.errs = append(c.errs, fmt.Errorf("%w: WithMaxPaths without WithPathAttribute", ErrInvalidOption))
	case c.maxPaths == 0:
		c.maxPaths = DefaultMaxPaths
	}
	if c.meters == nil {
		c.meters = otel.GetMeterProvider()
	}
	if c.tracers == nil {
		c.tracers = otel.GetTracerProvider()
	}
	return c, errors.Join(c.errs...)
}
