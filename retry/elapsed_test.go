package retry

import (
	"errors"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// fakeClock is a manually advanced clock for single-goroutine tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func TestUntilElapsed(t *testing.T) {
	clk := newFakeClock()
	p := must(t)(untilElapsed(10*time.Second, time.Second, clk.now))
	b := p.NewBackOff()

	if d := b.NextBackOff(); d != time.Second {
		t.Fatalf("at 0s: %v, want 1s", d)
	}
	clk.advance(10*time.Second - time.Nanosecond)
	if d := b.NextBackOff(); d != time.Second {
		t.Fatalf("just before 10s: %v, want 1s", d)
	}
	clk.advance(time.Nanosecond)
	if d := b.NextBackOff(); d != backoff.Stop {
		t.Fatalf("at 10s: %v, want Stop", d)
	}

	b.Reset()
	if d := b.NextBackOff(); d != time.Second {
		t.Fatalf("after Reset: %v, want 1s", d)
	}
	clk.advance(10 * time.Second)
	if d := b.NextBackOff(); d != backoff.Stop {
		t.Fatalf("10s after Reset: %v, want Stop", d)
	}
}

func TestUntilElapsedWindowStartsAtNewBackOff(t *testing.T) {
	clk := newFakeClock()
	p := must(t)(untilElapsed(10*time.Second, 0, clk.now))
	early := p.NewBackOff()
	clk.advance(6 * time.Second)
	late := p.NewBackOff()
	clk.advance(6 * time.Second)
	if d := early.NextBackOff(); d != backoff.Stop {
		t.Fatalf("BackOff created 12s ago: %v, want Stop", d)
	}
	if d := late.NextBackOff(); d != 0 {
		t.Fatalf("BackOff created 6s ago: %v, want 0", d)
	}
}

func TestUntilElapsedWithRetry(t *testing.T) {
	clk := newFakeClock()
	p := must(t)(untilElapsed(10*time.Second, 0, clk.now))
	b := p.NewBackOff()
	clk.advance(time.Hour) // backoff.Retry resets the window when it starts.

	errBoom := errors.New("boom")
	attempts := 0
	err := backoff.Retry(func() error {
		attempts++
		clk.advance(3 * time.Second) // each attempt "takes" 3s
		return errBoom
	}, b)
	// Elapsed after attempts 1..4: 3s, 6s, 9s (retry), 12s (stop).
	if attempts != 4 || !errors.Is(err, errBoom) {
		t.Fatalf("attempts=%d err=%v, want 4 and boom", attempts, err)
	}
}

func TestUntilElapsedRealClock(t *testing.T) {
	b := must(t)(UntilElapsed(time.Hour, 0)).NewBackOff()
	if d := b.NextBackOff(); d != 0 {
		t.Fatalf("fresh real-clock BackOff: %v, want 0", d)
	}
}
