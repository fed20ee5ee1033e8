package hookmetrics

import (
	"math"
	"testing"
)

// TestDefaultBuckets: each default is positive, finite and strictly
// increasing, and a new slice on each call.
func TestDefaultBuckets(t *testing.T) {
	for name, f := range map[string]func() []float64{
		"wait": WaitBuckets, "hold": HoldBuckets, "state": StateBuckets, "request": RequestBuckets,
	} {
		b := f()
		if len(b) == 0 || b[0] <= 0 {
			t.Errorf("%s: %v", name, b)
		}
		for i, v := range b {
			if math.IsInf(v, 0) || math.IsNaN(v) || (i > 0 && v <= b[i-1]) {
				t.Errorf("%s: %v: not finite and strictly increasing at %d", name, b, i)
			}
		}
		b[0] = -1
		if f()[0] == -1 {
			t.Errorf("%s: the same slice on each call", name)
		}
	}
}
