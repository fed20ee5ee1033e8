package hookmetrics

import (
	"errors"
	"math"
	"slices"
	"testing"
)

var errInvalid = errors.New("adapter: invalid option")

// testConfig is an adapter's config as the adapters make theirs: its own
// fields beside an embedded Config.
type testConfig struct {
	Config
	name string
}

type testOption func(*testConfig)

func newTestConfig(opts ...testOption) (testConfig, error) {
	c := testConfig{Config: NewConfig(errInvalid, []float64{1}, []float64{2}, []float64{3}, []float64{4})}
	Apply(&c, &c.Config, opts)
	return c, c.Done("WithPath")
}

// TestConfigDefaults: without options, the defaults (copies of them) and
// DefaultMaxPaths, not by path, no error.
func TestConfigDefaults(t *testing.T) {
	wait := []float64{0.5, 1}
	c := NewConfig(errInvalid, wait, nil, nil, nil)
	wait[0] = 7
	if !slices.Equal(c.Wait, []float64{0.5, 1}) {
		t.Errorf("Wait %v: not a copy of the default", c.Wait)
	}
	if err := c.Done("WithPath"); err != nil || c.MaxPaths != DefaultMaxPaths || c.ByPath {
		t.Errorf("Done: %v, MaxPaths %d, ByPath %v", err, c.MaxPaths, c.ByPath)
	}
}

// TestConfigBuckets: good bounds are copied; empty, NaN, infinite, equal
// or decreasing ones fail with the histogram's name, wrapping the
// adapter's error.
func TestConfigBuckets(t *testing.T) {
	var c Config
	b := []float64{0.1, 1, 10}
	got := c.Buckets("wait", b)
	b[0] = 5
	if !slices.Equal(got, []float64{0.1, 1, 10}) || len(c.errs) != 0 {
		t.Fatalf("good bounds: %v, errors %v", got, c.errs)
	}
	for _, bad := range []struct {
		b    []float64
		text string
	}{
		{nil, "adapter: invalid option: no hold buckets"},
		{[]float64{}, "adapter: invalid option: no hold buckets"},
		{[]float64{1, 0.5}, "adapter: invalid option: hold buckets [1 0.5]: not finite and strictly increasing"},
		{[]float64{1, 1}, "adapter: invalid option: hold buckets [1 1]: not finite and strictly increasing"},
		{[]float64{math.NaN()}, "adapter: invalid option: hold buckets [NaN]: not finite and strictly increasing"},
		{[]float64{1, math.Inf(1)}, "adapter: invalid option: hold buckets [1 +Inf]: not finite and strictly increasing"},
		{[]float64{math.Inf(-1), 1}, "adapter: invalid option: hold buckets [-Inf 1]: not finite and strictly increasing"},
	} {
		c := Config{invalid: errInvalid}
		if got := c.Buckets("hold", bad.b); got != nil {
			t.Errorf("%v: kept as %v", bad.b, got)
		}
		err := c.Done("WithPath")
		if !errors.Is(err, errInvalid) || err.Error() != bad.text {
			t.Errorf("%v: %v, want %q wrapping the adapter's error", bad.b, err, bad.text)
		}
	}
}

// TestConfigMaxPaths: a cap below 1 fails; a cap without the metrics by
// path fails, named after the adapter's option; with it, the cap holds.
func TestConfigMaxPaths(t *testing.T) {
	byPath := func(c *testConfig) { c.ByPath = true }
	maxPaths := func(n int) testOption { return func(c *testConfig) { c.SetMaxPaths(n) } }
	c, err := newTestConfig(byPath, maxPaths(3))
	if err != nil || c.MaxPaths != 3 {
		t.Errorf("by path, at most 3: %v, MaxPaths %d", err, c.MaxPaths)
	}
	for _, bad := range []struct {
		opts []testOption
		text string
	}{
		{[]testOption{byPath, maxPaths(0)}, "adapter: invalid option: WithMaxPaths(0): at least 1"},
		{[]testOption{maxPaths(3)}, "adapter: invalid option: WithMaxPaths without WithPath"},
	} {
		if _, err := newTestConfig(bad.opts...); !errors.Is(err, errInvalid) || err.Error() != bad.text {
			t.Errorf("%v, want %q", err, bad.text)
		}
	}
}

// TestApply: the options run in order on the adapter's config; a nil one
// fails and the others still run; every failure is in Done's error, in
// order.
func TestApply(t *testing.T) {
	c, err := newTestConfig(
		func(c *testConfig) { c.name = "a" },
		nil,
		func(c *testConfig) { c.name += "b"; c.Fail("bad %q", c.name) },
	)
	if c.name != "ab" {
		t.Errorf("options ran to %q, want ab", c.name)
	}
	want := "adapter: invalid option: nil option\nadapter: invalid option: bad \"ab\""
	if !errors.Is(err, errInvalid) || err.Error() != want {
		t.Errorf("Done: %v, want %q", err, want)
	}
}

// TestConfigNewPaths: no Paths when the metrics are not by path; by path,
// Paths with the cap.
func TestConfigNewPaths(t *testing.T) {
	c, _ := newTestConfig()
	if p := c.NewPaths(); p != nil {
		t.Errorf("not by path: %+v", p)
	}
	c, _ = newTestConfig(func(c *testConfig) { c.ByPath = true; c.SetMaxPaths(1) })
	p := c.NewPaths()
	if p == nil || p.Label("/a") != "/a" || p.Label("/b") != PathOther {
		t.Errorf("by path, at most 1: %+v", p)
	}
}
