package counter

import (
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Option configures a Counter.
type Option func(*options) error

type options struct {
	policy retry.Policy
	lock   *PromotedLock
}

// WithRetryPolicy sets the policy of the optimistic tries: after a try that
// another writer beat, the policy says whether to try again and after what
// sleep (Curator's retryPolicy argument). Default: the client's retry
// policy (client.Client.RetryPolicy). A nil policy is refused by New.
func WithRetryPolicy(p retry.Policy) Option {
	return func(o *options) error {
		if p == nil {
			return errs.Invalid("nil retry policy")
		}
		o.policy = p
		return nil
	}
}

// PromotedLock is Curator's PromotedToLock: what an update does once its
// optimistic tries are used up. It takes a recipes/mutex lock at Path (wire
// compatible with Curator's InterProcessMutex) and tries again while holding
// it, as often as RetryPolicy allows.
type PromotedLock struct {
	// Path is the lock's path, relative to the client's namespace
	// (required). Every process updating the counter should name the same.
	Path string
	// RetryPolicy governs the tries under the lock after the first; nil
	// means one try only (Curator's default, RetryNTimes(0, 0)).
	RetryPolicy retry.Policy
	// Timeout bounds the wait for the lock; an update that does not get it
	// in time fails with ErrContention. 0 means no bound but the call's
	// context.
	Timeout time.Duration
}

// WithPromotedLock makes updates whose optimistic tries all lost take the
// lock l and try again under it. New refuses an invalid path (a
// *client.PathError) and a negative timeout.
func WithPromotedLock(l PromotedLock) Option {
	return func(o *options) error {
		if err := client.ValidatePath(l.Path); err != nil {
			return err
		}
		if l.Timeout < 0 {
			return errs.Invalid("negative promoted lock timeout %v", l.Timeout)
		}
		o.lock = &l
		return nil
	}
}
