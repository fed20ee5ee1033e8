package retry

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// ErrInvalidPolicy is wrapped by every error returned from a policy
// constructor when an argument is out of range. Test for it with errors.Is.
var ErrInvalidPolicy = errors.New("zkrecipes: invalid retry policy")

// Policy is an immutable description of when to retry and how long to wait
// before each retry. It is safe for concurrent use.
//
// NewBackOff returns a new, independent [backoff.BackOff] for one retry
// loop. The returned BackOff keeps state (the number of retries so far, or
// the start of the elapsed-time window), which its Reset method restarts; it
// must not be shared between goroutines.
type Policy interface {
	// NewBackOff returns a fresh BackOff for one retry loop.
	NewBackOff() backoff.BackOff
}

// Option configures the randomised policies ([ExponentialBackoff] and
// [BoundedExponentialBackoff]).
type Option func(*options)

type options struct {
	rnd *rand.Rand
}

// WithRand makes the policy draw its random multipliers from r instead of the
// process-wide source of math/rand/v2, which lets tests obtain deterministic
// sleeps from a seeded generator.
//
// Every draw from a generator supplied this way is made under one
// package-wide mutex, so NewBackOff and the BackOffs it returns stay safe to
// use from many goroutines, even when several policies share the same r. The
// caller must not use r concurrently outside this package. A nil r selects
// the default source.
func WithRand(r *rand.Rand) Option {
	return func(o *options) { o.rnd = r }
}

// Default returns the policy a client uses when it is given none:
// ExponentialBackoff(100*time.Millisecond, 10, 5*time.Second), that is up to
// ten retries, sleeping a random multiple of 100ms that grows exponentially
// and never exceeds five seconds.
func Default() Policy {
	return &exponentialPolicy{
		base:       100 * time.Millisecond,
		maxRetries: 10,
		maxSleep:   5 * time.Second,
		src:        &source{},
	}
}

// countedBackOff is the per-loop state of a policy that allows max retries,
// the n-th (from 0) after sleep(n).
type countedBackOff struct {
	max     int
	sleep   func(n int) time.Duration
	retries int
}

// NextBackOff implements backoff.BackOff.
func (b *countedBackOff) NextBackOff() time.Duration {
	if b.retries >= b.max {
		return backoff.Stop
	}
	d := b.sleep(b.retries)
	b.retries++
	return d
}

// Reset implements backoff.BackOff; it restarts the retry count.
func (b *countedBackOff) Reset() { b.retries = 0 }

// invalid builds an error that wraps ErrInvalidPolicy.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidPolicy, fmt.Sprintf(format, args...))
}

// injectedRandMu serialises draws from every generator given to WithRand. A
// single lock (rather than one per policy) keeps policies that share a
// generator from racing on it; only tests are expected to inject one.
var injectedRandMu sync.Mutex

// source draws random integers either from a caller-supplied generator or
// from the concurrency-safe global one.
type source struct {
	r *rand.Rand
}

// int64N returns a uniform integer in [0, n); n must be positive.
func (s *source) int64N(n int64) int64 {
	if s == nil || s.r == nil {
		return rand.Int64N(n)
	}
	injectedRandMu.Lock()
	defer injectedRandMu.Unlock()
	return s.r.Int64N(n)
}
