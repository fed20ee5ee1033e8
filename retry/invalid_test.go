package retry

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

func TestInvalidArguments(t *testing.T) {
	cases := map[string]func() (Policy, error){
		"Exponential zero base":         func() (Policy, error) { return ExponentialBackoff(0, 3, time.Second) },
		"Exponential negative base":     func() (Policy, error) { return ExponentialBackoff(-time.Millisecond, 3, time.Second) },
		"Exponential negative retries":  func() (Policy, error) { return ExponentialBackoff(time.Millisecond, -1, time.Second) },
		"Exponential negative maxSleep": func() (Policy, error) { return ExponentialBackoff(time.Millisecond, 3, -1) },
		"Exponential maxSleep < base":   func() (Policy, error) { return ExponentialBackoff(time.Second, 3, time.Millisecond) },
		"Bounded zero base":             func() (Policy, error) { return BoundedExponentialBackoff(0, time.Second, 3) },
		"Bounded negative base":         func() (Policy, error) { return BoundedExponentialBackoff(-1, time.Second, 3) },
		"Bounded zero maxSleep":         func() (Policy, error) { return BoundedExponentialBackoff(time.Millisecond, 0, 3) },
		"Bounded negative maxSleep":     func() (Policy, error) { return BoundedExponentialBackoff(time.Millisecond, -1, 3) },
		"Bounded maxSleep < base":       func() (Policy, error) { return BoundedExponentialBackoff(time.Second, time.Millisecond, 3) },
		"Bounded negative retries":      func() (Policy, error) { return BoundedExponentialBackoff(time.Millisecond, time.Second, -1) },
		"NTimes negative n":             func() (Policy, error) { return NTimes(-1, time.Second) },
		"NTimes negative sleep":         func() (Policy, error) { return NTimes(1, -time.Second) },
		"OneTime negative sleep":        func() (Policy, error) { return OneTime(-1) },
		"UntilElapsed zero max":         func() (Policy, error) { return UntilElapsed(0, time.Second) },
		"UntilElapsed negative max":     func() (Policy, error) { return UntilElapsed(-time.Second, time.Second) },
		"UntilElapsed negative sleep":   func() (Policy, error) { return UntilElapsed(time.Second, -1) },
		"Forever zero interval":         func() (Policy, error) { return Forever(0) },
		"Forever negative interval":     func() (Policy, error) { return Forever(-time.Second) },
	}
	for name, ctor := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := ctor()
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("err = %v, want one wrapping ErrInvalidPolicy", err)
			}
			if p != nil {
				t.Fatalf("got policy %v alongside error", p)
			}
		})
	}
}

func TestValidEdgeArguments(t *testing.T) {
	cases := map[string]func() (Policy, error){
		"Exponential no retries":      func() (Policy, error) { return ExponentialBackoff(time.Nanosecond, 0, 0) },
		"Exponential uncapped":        func() (Policy, error) { return ExponentialBackoff(time.Millisecond, 3, 0) },
		"Exponential maxSleep = base": func() (Policy, error) { return ExponentialBackoff(time.Second, 3, time.Second) },
		"Exponential nil option":      func() (Policy, error) { return ExponentialBackoff(time.Second, 3, 0, nil) },
		"Exponential nil rand":        func() (Policy, error) { return ExponentialBackoff(time.Second, 3, 0, WithRand(nil)) },
		"Bounded maxSleep = base":     func() (Policy, error) { return BoundedExponentialBackoff(time.Second, time.Second, 0) },
		"Bounded with rand": func() (Policy, error) {
			return BoundedExponentialBackoff(time.Second, time.Minute, 3, WithRand(rand.New(rand.NewPCG(1, 2))))
		},
		"NTimes zero":          func() (Policy, error) { return NTimes(0, 0) },
		"OneTime zero sleep":   func() (Policy, error) { return OneTime(0) },
		"UntilElapsed 0 sleep": func() (Policy, error) { return UntilElapsed(time.Nanosecond, 0) },
		"Forever 1ns":          func() (Policy, error) { return Forever(time.Nanosecond) },
	}
	for name, ctor := range cases {
		t.Run(name, func(t *testing.T) {
			p := must(t)(ctor())
			b := p.NewBackOff()
			b.NextBackOff()
			b.Reset()
		})
	}
}

func TestNilRandFallsBackToDefaultSource(t *testing.T) {
	p := must(t)(ExponentialBackoff(time.Millisecond, 29, 0, WithRand(nil))).(*exponentialPolicy)
	for n := 0; n <= 29; n++ {
		checkDraw(t, p, n, p.sleep(n))
	}
}
