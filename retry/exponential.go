package retry

import (
	"math"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// maxExponentialRetries is the largest retry count the exponential policies
// honour; larger values are lowered to it (see ExponentialBackoff).
const maxExponentialRetries = 29

// ExponentialBackoff returns Curator's ExponentialBackoffRetry policy: at
// most maxRetries retries, where the sleep before retry n (n counting from 0)
// is base multiplied by max(1, k) for k a uniform random integer in
// [0, 2^(n+1)). The sleep is therefore a multiple of base between base and
// base*(2^(n+1)-1), capped at maxSleep.
//
// maxSleep == 0 means no cap, matching Curator's constructor without a
// maximum (whose cap is effectively infinite); a product too large for a
// time.Duration then saturates at the largest Duration instead of
// overflowing. maxRetries == 0 means no retries, and values above 29 are
// capped at 29: the limit, taken from Curator, exists to avoid overflow, as it
// keeps the random range 2^(n+1) well inside a 32-bit integer (2^31 would
// already overflow one) and the products small enough for a time.Duration
// with any sensible base.
//
// The error wraps [ErrInvalidPolicy] when base <= 0, maxRetries < 0,
// maxSleep < 0, or maxSleep is positive but smaller than base.
func ExponentialBackoff(base time.Duration, maxRetries int, maxSleep time.Duration, opts ...Option) (Policy, error) {
	if maxSleep < 0 {
		return nil, invalid("ExponentialBackoff: maxSleep %v is negative (use 0 for no cap)", maxSleep)
	}
	return newExponential("ExponentialBackoff", base, maxRetries, maxSleep, opts)
}

// BoundedExponentialBackoff returns Curator's BoundedExponentialBackoffRetry
// policy: the same random exponential sleeps as [ExponentialBackoff], with a
// mandatory upper bound maxSleep.
//
// The error wraps [ErrInvalidPolicy] when base <= 0, maxSleep <= 0,
// maxSleep < base, or maxRetries < 0. maxRetries above 29 is capped at 29 to
// avoid overflowing the random range, as in [ExponentialBackoff].
func BoundedExponentialBackoff(base, maxSleep time.Duration, maxRetries int, opts ...Option) (Policy, error) {
	if maxSleep <= 0 {
		return nil, invalid("BoundedExponentialBackoff: maxSleep %v must be positive", maxSleep)
	}
	return newExponential("BoundedExponentialBackoff", base, maxRetries, maxSleep, opts)
}

func newExponential(name string, base time.Duration, maxRetries int, maxSleep time.Duration, opts []Option) (Policy, error) {
	if base <= 0 {
		return nil, invalid("%s: base %v must be positive", name, base)
	}
	if maxRetries < 0 {
		return nil, invalid("%s: maxRetries %d is negative", name, maxRetries)
	}
	if maxSleep > 0 && maxSleep < base {
		return nil, invalid("%s: maxSleep %v is smaller than base %v", name, maxSleep, base)
	}
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return &exponentialPolicy{
		base:       base,
		maxRetries: min(maxRetries, maxExponentialRetries),
		maxSleep:   maxSleep,
		src:        &source{r: o.rnd},
	}, nil
}

// exponentialPolicy implements both exponential constructors; maxSleep == 0
// means uncapped.
type exponentialPolicy struct {
	base       time.Duration
	maxRetries int
	maxSleep   time.Duration
	src        *source
}

// NewBackOff implements Policy.
func (p *exponentialPolicy) NewBackOff() backoff.BackOff {
	return &countedBackOff{max: p.maxRetries, sleep: p.sleep}
}

// sleep draws the wait before retry n (0 <= n <= maxExponentialRetries).
func (p *exponentialPolicy) sleep(n int) time.Duration {
	k := max(1, p.src.int64N(int64(1)<<(n+1)))
	limit := p.maxSleep
	if limit == 0 {
		limit = math.MaxInt64
	}
	// base*k > limit exactly when k > floor(limit/base); testing it this way
	// also avoids computing an overflowing product.
	if k > int64(limit/p.base) {
		return limit
	}
	return p.base * time.Duration(k)
}
