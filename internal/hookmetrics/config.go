package hookmetrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Config is the part of an adapter's configuration that both adapters'
// options set alike: the histograms' bucket bounds, whether the metrics
// are by path and how many paths are labelled as themselves, and the
// options' errors, each wrapping the adapter's ErrInvalidOption. An
// adapter's config embeds it; NewConfig makes it.
type Config struct {
	Wait    []float64 // the acquire wait's bucket bounds, in seconds
	Hold    []float64 // a holding's time's bucket bounds
	State   []float64 // the time in a session state's bucket bounds
	Request []float64 // a request's time's bucket bounds
	ByPath  bool      // the path is a label (zkprom) or an attribute (zkotel) of the recipes' and caches' metrics
	// MaxPaths is how many distinct paths are labelled as themselves: 0
	// until an option sets it, DefaultMaxPaths after Done if none did.
	MaxPaths int

	invalid error // the adapter's ErrInvalidOption
	errs    []error
}

// NewConfig returns a Config with copies of the default bucket bounds
// given, whose errors wrap invalid.
func NewConfig(invalid error, wait, hold, state, request []float64) Config {
	return Config{
		Wait:    slices.Clone(wait),
		Hold:    slices.Clone(hold),
		State:   slices.Clone(state),
		Request: slices.Clone(request),
		invalid: invalid,
	}
}

// Fail records a bad option: an error that reads the adapter's
// ErrInvalidOption, a colon and format's text, and wraps ErrInvalidOption.
func (c *Config) Fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: %s", c.invalid, fmt.Sprintf(format, args...)))
}

// Buckets checks b, the bucket bounds of the histogram name (wait,
// hold...), and returns a copy of it; nil, after Fail, when b is empty or
// not finite and strictly increasing.
func (c *Config) Buckets(name string, b []float64) []float64 {
	if len(b) == 0 {
		c.Fail("no %s buckets", name)
		return nil
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) || (i > 0 && v <= b[i-1]) {
			c.Fail("%s buckets %v: not finite and strictly increasing", name, b)
			return nil
		}
	}
	return slices.Clone(b)
}

// SetMaxPaths sets MaxPaths to n, the adapters' WithMaxPaths; it fails
// when n is below 1.
func (c *Config) SetMaxPaths(n int) {
	if n < 1 {
		c.Fail("WithMaxPaths(%d): at least 1", n)
		return
	}
	c.MaxPaths = n
}

// NewPaths returns the Paths that label the paths of the metrics by path,
// MaxPaths of them as themselves; nil when the metrics are not by path.
func (c *Config) NewPaths() *Paths {
	if !c.ByPath {
		return nil
	}
	return NewPaths(c.MaxPaths)
}

// Apply calls each of opts on cfg, the adapter's config, which embeds c;
// a nil option fails.
func Apply[O ~func(*C), C any](cfg *C, c *Config, opts []O) {
	for _, o := range opts {
		if o == nil {
			c.Fail("nil option")
			continue
		}
		o(cfg)
	}
}

// Done checks what the options set together, once they are all applied,
// and returns every failure joined (nil when none): MaxPaths set when the
// metrics are not by path fails, named after the adapter's option
// byPathOption (WithPathLabel, WithPathAttribute), and a MaxPaths no
// option set becomes DefaultMaxPaths.
func (c *Config) Done(byPathOption string) error {
	switch {
	case c.MaxPaths != 0 && !c.ByPath:
		c.Fail("WithMaxPaths without %s", byPathOption)
	case c.MaxPaths == 0:
		c.MaxPaths = DefaultMaxPaths
	}
	return errors.Join(c.errs...)
}
