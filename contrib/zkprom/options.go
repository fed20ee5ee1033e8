package zkprom

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// ErrInvalidOption is wrapped by the error New returns for a bad option.
var ErrInvalidOption = errors.New("zkprom: invalid option")

// Option configures New.
type Option func(*config)

type config struct {
	namespace   string
	constLabels prometheus.Labels
	wait        []float64
	hold        []float64
	state       []float64
	request     []float64
	pathLabel   bool
	maxPaths    int // 0: not set
	errs        []error
}

// WithNamespace prefixes every metric's name with ns and an underscore
// (default "zkrecipes"); "" leaves the names bare. It must be a classic
// Prometheus name: letters, digits and underscores, not starting with a
// digit.
func WithNamespace(ns string) Option {
	return func(c *config) {
		if ns != "" && !classicName.MatchString(ns) {
			c.errs = append(c.errs, fmt.Errorf("%w: namespace %q", ErrInvalidOption, ns))
		}
		c.namespace = ns
	}
}

// classicName is a metric name or label name that needs no quoting in the
// text format.
var classicName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// WithConstLabels adds labels with fixed values to every metric: to tell
// apart the clients of one process registered on one registry, say
// {"client": "orders"}. The names are classic Prometheus label names,
// none of recipe, outcome, ended, state, type, path, op or error.
func WithConstLabels(l prometheus.Labels) Option {
	return func(c *config) {
		c.constLabels = make(prometheus.Labels, len(l))
		for k, v := range l {
			if !classicName.MatchString(k) || strings.HasPrefix(k, "__") {
				c.errs = append(c.errs, fmt.Errorf("%w: const label name %q", ErrInvalidOption, k))
			}
			c.constLabels[k] = v
		}
	}
}

// WithWaitBuckets replaces DefaultWaitBuckets: upper bounds in seconds,
// strictly increasing.
func WithWaitBuckets(b ...float64) Option {
	return func(c *config) { c.wait = c.buckets("wait", b) }
}

// WithHoldBuckets replaces DefaultHoldBuckets: upper bounds in seconds,
// strictly increasing.
func WithHoldBuckets(b ...float64) Option {
	return func(c *config) { c.hold = c.buckets("hold", b) }
}

// WithStateBuckets replaces DefaultStateBuckets: upper bounds in seconds,
// strictly increasing.
func WithStateBuckets(b ...float64) Option {
	return func(c *config) { c.state = c.buckets("state", b) }
}

// WithRequestBuckets replaces DefaultRequestBuckets: upper bounds in
// seconds, strictly increasing.
func WithRequestBuckets(b ...float64) Option {
	return func(c *config) { c.request = c.buckets("request", b) }
}

// WithPathLabel adds the recipe's path as a label "path" to the acquire,
// hold and lost metrics and the gauges, and the cache's root to the cache
// events. Each path is a series of its own (of every bucket of the
// histograms): use it only when the application has a few fixed paths.
// Only the first DefaultMaxPaths distinct paths (WithMaxPaths to change
// it) are labelled as themselves; every later one is labelled PathOther,
// so that a program making paths on the fly cannot grow the series
// without bound.
func WithPathLabel() Option {
	return func(c *config) { c.pathLabel = true }
}

// WithMaxPaths sets how many distinct paths WithPathLabel labels as
// themselves (default DefaultMaxPaths), at least 1; the rest are
// PathOther. It needs WithPathLabel.
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
		namespace: "zkrecipes",
		wait:      slices.Clone(DefaultWaitBuckets),
		hold:      slices.Clone(DefaultHoldBuckets),
		state:     slices.Clone(DefaultStateBuckets),
		request:   slices.Clone(DefaultRequestBuckets),
	}
	for _, o := range opts {
		if o == nil {
			c.errs = append(c.errs, fmt.Errorf("%w: nil option", ErrInvalidOption))
			continue
		}
		o(&c)
	}
	switch {
	case c.maxPaths != 0 && !c.pathLabel:
		c.errs = append(c.errs, fmt.Errorf("%w: WithMaxPaths without WithPathLabel", ErrInvalidOption))
	case c.maxPaths == 0:
		c.maxPaths = DefaultMaxPaths
	}
	return c, errors.Join(c.errs...)
}
