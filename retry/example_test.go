package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/retry"
)

// An exponential policy driving backoff.Retry: transient errors are retried,
// final ones stop the loop at once via backoff.Permanent.
func ExampleExponentialBackoff() {
	p, err := retry.ExponentialBackoff(time.Millisecond, 5, 10*time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}

	attempts := 0
	op := func() error {
		attempts++
		var err error
		if attempts < 3 {
			err = zk.ErrConnectionClosed // pretend the connection dropped twice
		}
		if err != nil && !retry.IsRetryable(err) {
			return backoff.Permanent(err)
		}
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = backoff.Retry(op, backoff.WithContext(p.NewBackOff(), ctx))
	fmt.Println("attempts:", attempts, "err:", err)
	// Output: attempts: 3 err: <nil>
}

// Invalid arguments are reported as errors wrapping ErrInvalidPolicy.
func ExampleNTimes() {
	_, err := retry.NTimes(-1, time.Second)
	fmt.Println(errors.Is(err, retry.ErrInvalidPolicy))

	p, _ := retry.NTimes(2, 0)
	b := p.NewBackOff()
	for d := b.NextBackOff(); d != backoff.Stop; d = b.NextBackOff() {
		fmt.Println("retry after", d)
	}
	// Output:
	// true
	// retry after 0s
	// retry after 0s
}

func ExampleIsRetryable() {
	for _, err := range []error{
		zk.ErrConnectionClosed,
		fmt.Errorf("create /lock: %w", zk.ErrNoServer),
		zk.ErrNoNode,
		zk.ErrSessionExpired,
		context.Canceled,
	} {
		fmt.Printf("%v: retryable=%v expired=%v\n", err, retry.IsRetryable(err), retry.IsSessionExpired(err))
	}
	// Output:
	// zk: connection closed: retryable=true expired=false
	// create /lock: zk: could not connect to a server: retryable=true expired=false
	// zk: node does not exist: retryable=false expired=false
	// zk: session has been expired by the server: retryable=false expired=true
	// context canceled: retryable=false expired=false
}
