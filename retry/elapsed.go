package retry

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// UntilElapsed returns Curator's RetryUntilElapsed policy: a retry after
// every sleep for as long as less than maxElapsed has passed since the
// BackOff was created or last Reset (backoff.Retry resets it when it starts).
// As in Curator the decision is taken before sleeping, so the last sleep may
// end after maxElapsed; one final attempt then follows.
//
// sleep == 0 means retry at once. The error wraps [ErrInvalidPolicy] when
// maxElapsed <= 0 or sleep < 0.
func UntilElapsed(maxElapsed, sleep time.Duration) (Policy, error) {
	return untilElapsed(maxElapsed, sleep, time.Now)
}

// untilElapsed is UntilElapsed with an injectable clock.
func untilElapsed(maxElapsed, sleep time.Duration, now func() time.Time) (Policy, error) {
	if maxElapsed <= 0 {
		return nil, invalid("UntilElapsed: maxElapsed %v must be positive", maxElapsed)
	}
	if sleep < 0 {
		return nil, invalid("UntilElapsed: sleep %v is negative", sleep)
	}
	return &untilElapsedPolicy{maxElapsed: maxElapsed, sleep: sleep, now: now}, nil
}

type untilElapsedPolicy struct {
	maxElapsed time.Duration
	sleep      time.Duration
	now        func() time.Time
}

// NewBackOff implements Policy; the elapsed-time window starts now.
func (p *untilElapsedPolicy) NewBackOff() backoff.BackOff {
	return &untilElapsedBackOff{p: p, start: p.now()}
}

type untilElapsedBackOff struct {
	p     *untilElapsedPolicy
	start time.Time
}

// NextBackOff implements backoff.BackOff.
func (b *untilElapsedBackOff) NextBackOff() time.Duration {
	if b.p.now().Sub(b.start) >= b.p.maxElapsed {
		return backoff.Stop
	}
	return b.p.sleep
}

// Reset implements backoff.BackOff; it restarts the elapsed-time window.
func (b *untilElapsedBackOff) Reset() { b.start = b.p.now() }
