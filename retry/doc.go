// Package retry provides the retry policies of Apache Curator on top of
// github.com/cenkalti/backoff/v4, and a classifier that tells transient
// ZooKeeper errors (worth retrying) from final ones.
//
// A [Policy] is an immutable description of a retry strategy that may be
// shared freely between goroutines. Each retry loop asks it for a fresh
// [backoff.BackOff] via NewBackOff; that BackOff is stateful (it counts
// retries or measures elapsed time), belongs to one loop, and is not safe for
// concurrent use. Because the result is an ordinary backoff.BackOff it plugs
// straight into [backoff.Retry], and can be bound to a context with
// [backoff.WithContext] so that cancellation interrupts the waits:
//
//	p, err := retry.ExponentialBackoff(100*time.Millisecond, 5, 2*time.Second)
//	if err != nil {
//		return err
//	}
//	err = backoff.Retry(func() error {
//		_, err := conn.Create(path, data, 0, acl)
//		if err != nil && !retry.IsRetryable(err) {
//			return backoff.Permanent(err)
//		}
//		return err
//	}, backoff.WithContext(p.NewBackOff(), ctx))
//
// [Policy]'s NewBackOff returns backoff/v4's own [backoff.BackOff], so a caller
// that implements a Policy, or drives one by hand, depends on
// github.com/cenkalti/backoff/v4 (and on its major version: a v5 BackOff is
// a different type). This is deliberate, and it is the only place zkrecipes
// exposes that module: every other package takes and returns a Policy
// (client.WithRetryPolicy, Client.RetryPolicy) and keeps its BackOffs to
// itself.
//
// Counting follows Curator: NextBackOff is consulted after a failed attempt,
// and the n-th call (counting from 0) is "retry n". A policy allowing k
// retries therefore yields k durations and then [backoff.Stop], so the
// operation runs at most k+1 times.
//
// Constructors validate their arguments and return an error wrapping
// [ErrInvalidPolicy] for values that make no sense (negative counts or
// durations, non-positive bases and so on); they never panic.
package retry
