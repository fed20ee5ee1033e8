package retry

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// checkDraw asserts the Curator bounds of one sleep before retry n.
func checkDraw(t *testing.T, p *exponentialPolicy, n int, d time.Duration) {
	t.Helper()
	upper := p.base * time.Duration(int64(1)<<(n+1)-1)
	if p.maxSleep > 0 {
		upper = min(upper, p.maxSleep)
	}
	if d < p.base || d > upper {
		t.Fatalf("retry %d: sleep %v outside [%v, %v]", n, d, p.base, upper)
	}
	if d%p.base != 0 && d != p.maxSleep {
		t.Fatalf("retry %d: sleep %v is neither a multiple of base %v nor maxSleep %v", n, d, p.base, p.maxSleep)
	}
}

func TestExponentialDrawBounds(t *testing.T) {
	const samples = 500
	cases := []struct {
		name     string
		base     time.Duration
		maxSleep time.Duration
	}{
		{"uncapped", time.Millisecond, 0},
		{"capped off-multiple", 3 * time.Millisecond, time.Second + 500*time.Microsecond},
		{"capped at base", 7 * time.Millisecond, 7 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pol := must(t)(ExponentialBackoff(tc.base, 29, tc.maxSleep, WithRand(seeded(1))))
			p := pol.(*exponentialPolicy)
			for n := 0; n <= 29; n++ {
				for range samples {
					checkDraw(t, p, n, p.sleep(n))
				}
			}
		})
	}
}

func TestExponentialDrawsCoverRange(t *testing.T) {
	base := time.Millisecond
	p := must(t)(ExponentialBackoff(base, 29, 0, WithRand(seeded(2)))).(*exponentialPolicy)
	for n := 0; n <= 3; n++ {
		seen := map[time.Duration]int{}
		for range 4000 {
			seen[p.sleep(n)]++
		}
		top := int64(1)<<(n+1) - 1
		for k := int64(1); k <= top; k++ {
			if seen[base*time.Duration(k)] == 0 {
				t.Errorf("retry %d: %v*%d never drawn in 4000 samples: %v", n, base, k, seen)
			}
		}
		if int64(len(seen)) != top {
			t.Errorf("retry %d: %d distinct values, want %d", n, len(seen), top)
		}
	}
	// The range really grows: at n=29 the largest of 500 draws is below
	// base*2^28 only with probability 2^-500.
	var largest time.Duration
	for range 500 {
		largest = max(largest, p.sleep(29))
	}
	if largest < base*(1<<28) {
		t.Errorf("retry 29: largest draw %v, want at least %v", largest, base*(1<<28))
	}
}

func TestExponentialBackOffSequenceBounds(t *testing.T) {
	for _, ctor := range []struct {
		name string
		make func() (Policy, error)
	}{
		{"ExponentialBackoff", func() (Policy, error) {
			return ExponentialBackoff(time.Millisecond, 29, 0, WithRand(seeded(3)))
		}},
		{"BoundedExponentialBackoff", func() (Policy, error) {
			return BoundedExponentialBackoff(time.Millisecond, 40*time.Millisecond, 29, WithRand(seeded(3)))
		}},
	} {
		t.Run(ctor.name, func(t *testing.T) {
			pol := must(t)(ctor.make())
			p := pol.(*exponentialPolicy)
			for range 200 {
				ds := drain(t, pol.NewBackOff(), 100)
				if len(ds) != 29 {
					t.Fatalf("got %d retries, want 29", len(ds))
				}
				for n, d := range ds {
					checkDraw(t, p, n, d)
				}
			}
		})
	}
}

func TestExponentialMaxSleepCaps(t *testing.T) {
	maxSleep := 50 * time.Millisecond
	for _, pol := range []Policy{
		must(t)(ExponentialBackoff(10*time.Millisecond, 29, maxSleep, WithRand(seeded(4)))),
		must(t)(BoundedExponentialBackoff(10*time.Millisecond, maxSleep, 29, WithRand(seeded(4)))),
	} {
		capped := 0
		for range 50 {
			for _, d := range drain(t, pol.NewBackOff(), 100) {
				if d > maxSleep {
					t.Fatalf("sleep %v above maxSleep %v", d, maxSleep)
				}
				if d == maxSleep {
					capped++
				}
			}
		}
		if capped == 0 {
			t.Fatal("no sleep ever reached maxSleep")
		}
	}
}

func TestExponentialOverflowSaturates(t *testing.T) {
	p := must(t)(ExponentialBackoff(time.Hour, 29, 0, WithRand(seeded(5)))).(*exponentialPolicy)
	saturated := false
	for n := 0; n <= 29; n++ {
		for range 200 {
			d := p.sleep(n)
			if d < time.Hour {
				t.Fatalf("retry %d: sleep %v below base (overflow?)", n, d)
			}
			if d == math.MaxInt64 {
				saturated = true
			}
		}
	}
	if !saturated {
		t.Fatal("1h*2^29 exceeds a Duration, yet no draw saturated")
	}
}

func TestExponentialRetryCounts(t *testing.T) {
	for _, tc := range []struct{ maxRetries, want int }{
		{0, 0}, {1, 1}, {3, 3}, {28, 28}, {29, 29}, {30, 29}, {1000, 29}, {math.MaxInt, 29},
	} {
		e := must(t)(ExponentialBackoff(time.Nanosecond, tc.maxRetries, 0))
		if got := len(drain(t, e.NewBackOff(), 100)); got != tc.want {
			t.Errorf("ExponentialBackoff maxRetries=%d: %d retries, want %d", tc.maxRetries, got, tc.want)
		}
		b := must(t)(BoundedExponentialBackoff(time.Nanosecond, time.Second, tc.maxRetries))
		if got := len(drain(t, b.NewBackOff(), 100)); got != tc.want {
			t.Errorf("BoundedExponentialBackoff maxRetries=%d: %d retries, want %d", tc.maxRetries, got, tc.want)
		}
	}
}

func TestExponentialStopIsSticky(t *testing.T) {
	b := must(t)(ExponentialBackoff(time.Nanosecond, 2, 0)).NewBackOff()
	drain(t, b, 10)
	for range 5 {
		if d := b.NextBackOff(); d != backoff.Stop {
			t.Fatalf("after Stop got %v, want Stop", d)
		}
	}
}

func TestExponentialReset(t *testing.T) {
	b := must(t)(ExponentialBackoff(time.Nanosecond, 5, 0)).NewBackOff()
	b.NextBackOff()
	b.NextBackOff()
	b.Reset()
	if got := len(drain(t, b, 100)); got != 5 {
		t.Fatalf("after partial use and Reset: %d retries, want 5", got)
	}
	b.Reset()
	if got := len(drain(t, b, 100)); got != 5 {
		t.Fatalf("after exhaustion and Reset: %d retries, want 5", got)
	}
}

func TestExponentialSeedIsDeterministic(t *testing.T) {
	seq := func(seed uint64) []time.Duration {
		p := must(t)(ExponentialBackoff(time.Millisecond, 20, 0, WithRand(seeded(seed))))
		return drain(t, p.NewBackOff(), 100)
	}
	a, b, c := seq(42), seq(42), seq(43)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different sequences:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("different seeds gave the same sequence %v", a)
	}
}

func TestDefault(t *testing.T) {
	pol := Default()
	p, ok := pol.(*exponentialPolicy)
	if !ok {
		t.Fatalf("Default() is %T, want an exponential policy", pol)
	}
	if p.base != 100*time.Millisecond || p.maxRetries != 10 || p.maxSleep != 5*time.Second {
		t.Fatalf("Default() = base %v, retries %d, maxSleep %v; want 100ms, 10, 5s", p.base, p.maxRetries, p.maxSleep)
	}
	for range 100 {
		ds := drain(t, pol.NewBackOff(), 100)
		if len(ds) != 10 {
			t.Fatalf("Default: %d retries, want 10", len(ds))
		}
		for n, d := range ds {
			checkDraw(t, p, n, d)
		}
	}
}
