package retry

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// NTimes returns Curator's RetryNTimes policy: n retries, each preceded by
// the same sleep. n == 0 means no retries and sleep == 0 means retry at once;
// the error wraps [ErrInvalidPolicy] when n or sleep is negative.
func NTimes(n int, sleep time.Duration) (Policy, error) {
	if n < 0 {
		return nil, invalid("NTimes: n %d is negative", n)
	}
	if sleep < 0 {
		return nil, invalid("NTimes: sleep %v is negative", sleep)
	}
	return &nTimesPolicy{n: n, sleep: sleep}, nil
}

// OneTime returns Curator's RetryOneTime policy, equivalent to
// NTimes(1, sleep): a single retry after sleep. The error wraps
// [ErrInvalidPolicy] when sleep is negative.
func OneTime(sleep time.Duration) (Policy, error) {
	if sleep < 0 {
		return nil, invalid("OneTime: sleep %v is negative", sleep)
	}
	return NTimes(1, sleep)
}

// Forever returns Curator's RetryForever policy: retries without end, each
// after interval. Bound such a loop with a context (see
// [backoff.WithContext]). The error wraps [ErrInvalidPolicy] when
// interval <= 0, since a zero interval would spin.
func Forever(interval time.Duration) (Policy, error) {
	if interval <= 0 {
		return nil, invalid("Forever: interval %v must be positive", interval)
	}
	return foreverPolicy{interval: interval}, nil
}

type nTimesPolicy struct {
	n     int
	sleep time.Duration
}

// NewBackOff implements Policy.
func (p *nTimesPolicy) NewBackOff() backoff.BackOff {
	return &countedBackOff{max: p.n, sleep: func(int) time.Duration { return p.sleep }}
}

type foreverPolicy struct {
	interval time.Duration
}

// NewBackOff implements Policy.
func (p foreverPolicy) NewBackOff() backoff.BackOff {
	return &backoff.ConstantBackOff{Interval: p.interval}
}
