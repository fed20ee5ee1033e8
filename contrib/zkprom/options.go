package zkprom

import (
	"errors"
	"regexp"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/internal/hookmetrics"
)

// ErrInvalidOption is wrapped by the error New returns for a bad option.
var ErrInvalidOption = errors.New("zkprom: invalid option")

// Option configures New.
type Option func(*config)

type config struct {
	hookmetrics.Config // buckets, by path, max paths, errors

	namespace   string
	constLabels prometheus.Labels
}

// WithNamespace prefixes every metric's name with ns and an underscore
// (default "zkrecipes"); "" leaves the names bare. It must be a classic
// Prometheus name: letters, digits and underscores, not starting with a
// digit.
func WithNamespace(ns string) Option {
	return func(c *config) {
		if ns != "" && !classicName.MatchString(ns) {
			c.Fail("namespace %q", ns)
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
				c.Fail("const label name %q", k)
			}
			c.constLabels[k] = v
		}
	}
}

// WithWaitBuckets replaces DefaultWaitBuckets: upper bounds in seconds,
// strictly increasing.
func WithWaitBuckets(b ...float64) Option {
	return func(c *config) { c.Wait = c.Buckets("wait", b) }
}

// WithHoldBuckets replaces DefaultHoldBuckets: upper bounds in seconds,
// strictly increasing.
func WithHoldBuckets(b ...float64) Option {
	return func(c *config) { c.Hold = c.Buckets("hold", b) }
}

// WithStateBuckets replaces DefaultStateBuckets: upper bounds in seconds,
// strictly increasing.
func WithStateBuckets(b ...float64) Option {
	return func(c *config) { c.State = c.Buckets("state", b) }
}

// WithRequestBuckets replaces DefaultRequestBuckets: upper bounds in
// seconds, strictly increasing.
func WithRequestBuckets(b ...float64) Option {
	return func(c *config) { c.Request = c.Buckets("request", b) }
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
	return func(c *config) { c.ByPath = true }
}

// WithMaxPaths sets how many distinct paths WithPathLabel labels as
// themselves (default DefaultMaxPaths), at least 1; the rest are
// PathOther. It needs WithPathLabel.
func WithMaxPaths(n int) Option {
	return func(c *config) { c.SetMaxPaths(n) }
}

func newConfig(opts []Option) (config, error) {
	c := config{
		Config:    hookmetrics.NewConfig(ErrInvalidOption, DefaultWaitBuckets, DefaultHoldBuckets, DefaultStateBuckets, DefaultRequestBuckets),
		namespace: "zkrecipes",
	}
	hookmetrics.Apply(&c, &c.Config, opts)
	return c, c.Done("WithPathLabel")
}
