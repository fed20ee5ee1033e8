package retry

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// seeded returns a deterministic generator for tests.
func seeded(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// drain calls NextBackOff until backoff.Stop or limit calls, and returns the
// durations seen before Stop.
func drain(t *testing.T, b backoff.BackOff, limit int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for range limit {
		d := b.NextBackOff()
		if d == backoff.Stop {
			return out
		}
		out = append(out, d)
	}
	t.Fatalf("no backoff.Stop after %d calls", limit)
	return nil
}

// must returns a checker that fails the test when a constructor rejects its
// input; use it as must(t)(NTimes(3, 0)).
func must(t *testing.T) func(Policy, error) Policy {
	return func(p Policy, err error) Policy {
		t.Helper()
		if err != nil {
			t.Fatalf("constructor: %v", err)
		}
		if p == nil {
			t.Fatal("constructor returned a nil policy without an error")
		}
		return p
	}
}
