package retry

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
)

var errTransient = errors.New("transient")

func TestBackoffRetryAttempts(t *testing.T) {
	cases := []struct {
		name     string
		make     func() (Policy, error)
		attempts int
	}{
		{"NTimes(0)", func() (Policy, error) { return NTimes(0, 0) }, 1},
		{"NTimes(3)", func() (Policy, error) { return NTimes(3, 0) }, 4},
		{"OneTime", func() (Policy, error) { return OneTime(time.Nanosecond) }, 2},
		{"Exponential(0 retries)", func() (Policy, error) { return ExponentialBackoff(time.Nanosecond, 0, 0) }, 1},
		{"Exponential(5 retries)", func() (Policy, error) { return ExponentialBackoff(time.Nanosecond, 5, time.Nanosecond) }, 6},
		{"Bounded(2 retries)", func() (Policy, error) { return BoundedExponentialBackoff(time.Nanosecond, time.Nanosecond, 2) }, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := must(t)(tc.make())
			b := p.NewBackOff()
			// Running twice on the same BackOff shows Retry's Reset restarts it.
			for round := range 2 {
				attempts := 0
				err := backoff.Retry(func() error { attempts++; return errTransient }, b)
				if !errors.Is(err, errTransient) {
					t.Fatalf("round %d: err = %v, want the operation's error", round, err)
				}
				if attempts != tc.attempts {
					t.Fatalf("round %d: %d attempts, want %d", round, attempts, tc.attempts)
				}
			}
		})
	}
}

func TestBackoffRetryStopsOnSuccess(t *testing.T) {
	p := must(t)(NTimes(10, 0))
	attempts := 0
	err := backoff.Retry(func() error {
		attempts++
		if attempts < 3 {
			return errTransient
		}
		return nil
	}, p.NewBackOff())
	if err != nil || attempts != 3 {
		t.Fatalf("err=%v attempts=%d, want nil and 3", err, attempts)
	}
}

func TestBackoffRetryPermanent(t *testing.T) {
	p := must(t)(NTimes(10, 0))
	attempts := 0
	err := backoff.Retry(func() error { attempts++; return backoff.Permanent(errTransient) }, p.NewBackOff())
	if !errors.Is(err, errTransient) || attempts != 1 {
		t.Fatalf("err=%v attempts=%d, want transient and 1", err, attempts)
	}
}

func TestForeverStopsWithContext(t *testing.T) {
	p := must(t)(Forever(time.Nanosecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attempts := 0
	err := backoff.Retry(func() error {
		attempts++
		if attempts == 5 {
			cancel()
		}
		return errTransient
	}, backoff.WithContext(p.NewBackOff(), ctx))
	if !errors.Is(err, context.Canceled) || attempts != 5 {
		t.Fatalf("err=%v attempts=%d, want context.Canceled and 5", err, attempts)
	}
}

func TestConcurrentNewBackOff(t *testing.T) {
	shared := seeded(7)
	exp := must(t)(ExponentialBackoff(time.Millisecond, 12, 0, WithRand(shared)))
	bounded := must(t)(BoundedExponentialBackoff(time.Millisecond, 20*time.Millisecond, 12, WithRand(shared)))
	policies := []struct {
		p    Policy
		want int
	}{
		{exp, 12}, {bounded, 12}, {Default(), 10},
		{must(t)(NTimes(4, 0)), 4},
		{must(t)(UntilElapsed(time.Hour, 0)), -1},
	}
	const goroutines, loops = 8, 200
	var wg sync.WaitGroup
	errs := make(chan string, goroutines*len(policies))
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range loops {
				for _, pc := range policies {
					b := pc.p.NewBackOff()
					if pc.want < 0 {
						if d := b.NextBackOff(); d != 0 {
							errs <- "UntilElapsed: unexpected " + d.String()
							return
						}
						continue
					}
					n := 0
					for b.NextBackOff() != backoff.Stop {
						n++
					}
					if n != pc.want {
						errs <- "wrong retry count"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for n := 0; n < 12; n++ {
		checkDraw(t, exp.(*exponentialPolicy), n, exp.(*exponentialPolicy).sleep(n))
	}
}
