package integration

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// TestClientDoRetries: Do retries what is worth retrying and nothing else,
// stops when its context ends or its policy gives up, and reports the last
// error either way.
func TestClientDoRetries(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	withPolicy := func(p retry.Policy, err error) *client.Client {
		t.Helper()
		require.NoError(t, err)
		return connect(t, clientOpts{ns: ns, extra: []client.Option{client.WithRetryPolicy(p)}})
	}
	patient := withPolicy(retry.NTimes(5, 10*time.Millisecond))
	forever := withPolicy(retry.Forever(10 * time.Millisecond))
	twice := withPolicy(retry.NTimes(2, 10*time.Millisecond))
	ctx := ctxT(t, 30*time.Second)

	t.Run("retryable error then success", func(t *testing.T) {
		var calls atomic.Int32
		err := patient.Do(ctx, func(context.Context) error {
			if calls.Add(1) <= 2 {
				return zk.ErrConnectionClosed
			}
			return nil
		})
		require.NoError(t, err)
		assert.EqualValues(t, 3, calls.Load())
	})

	t.Run("final error is not retried", func(t *testing.T) {
		var calls atomic.Int32
		err := patient.Do(ctx, func(context.Context) error {
			calls.Add(1)
			return zk.ErrNoNode
		})
		assert.ErrorIs(t, err, zk.ErrNoNode)
		assert.EqualValues(t, 1, calls.Load())
		// The same through a real request.
		_, _, err = patient.Get(ctx, "/does-not-exist")
		assert.ErrorIs(t, err, zk.ErrNoNode)
	})

	t.Run("an unknown error is not retried", func(t *testing.T) {
		var calls atomic.Int32
		boom := errors.New("boom")
		err := patient.Do(ctx, func(context.Context) error {
			calls.Add(1)
			return boom
		})
		assert.ErrorIs(t, err, boom)
		assert.EqualValues(t, 1, calls.Load())
	})

	t.Run("context cancellation ends the loop", func(t *testing.T) {
		var calls atomic.Int32
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var seen atomic.Bool // the op got the caller's context
		done := make(chan error, 1)
		go func() {
			done <- forever.Do(cctx, func(opCtx context.Context) error {
				calls.Add(1)
				seen.Store(opCtx.Done() == cctx.Done())
				return zk.ErrConnectionClosed
			})
		}()
		time.Sleep(100 * time.Millisecond)
		cancel()
		var err error
		select {
		case err = <-done:
		case <-time.After(2 * time.Second):
			t.Fatal("Do kept going after its context was cancelled")
		}
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, err, zk.ErrConnectionClosed, "the last error is kept")
		assert.Greater(t, calls.Load(), int32(1), "it did retry before the cancel")
		assert.True(t, seen.Load())
		n := calls.Load()
		time.Sleep(50 * time.Millisecond)
		assert.Equal(t, n, calls.Load(), "op still runs after Do returned")
	})

	t.Run("the last error survives a cancellation at any point", func(t *testing.T) {
		// With no sleep between attempts the cancellation is seen either
		// while Do waits to retry or when it is about to start the next
		// attempt, at random: over many rounds both paths are taken, and
		// each must report the operation's last error along with ctx's.
		noWait := withPolicy(retry.NTimes(100, 0))
		for round := range 50 {
			cctx, cancel := context.WithCancel(ctx)
			var calls atomic.Int32
			err := noWait.Do(cctx, func(context.Context) error {
				calls.Add(1)
				cancel()
				return zk.ErrConnectionClosed
			})
			cancel()
			require.ErrorIs(t, err, context.Canceled, "round %d", round)
			require.ErrorIs(t, err, zk.ErrConnectionClosed, "round %d: the last error was dropped", round)
			require.EqualValues(t, 1, calls.Load(), "round %d", round)
		}
	})

	t.Run("Close during an attempt", func(t *testing.T) {
		p, err := retry.NTimes(100, 0)
		require.NoError(t, err)
		for round := range 50 {
			// Do needs no session: an unstarted client will do, and is cheap.
			c, err := client.New(client.WithServers(shared.Addrs()...), client.WithRetryPolicy(p))
			require.NoError(t, err)
			var calls atomic.Int32
			err = c.Do(ctx, func(context.Context) error {
				calls.Add(1)
				_ = c.Close()
				return zk.ErrConnectionClosed
			})
			require.ErrorIs(t, err, zkrecipes.ErrClosed, "round %d", round)
			require.ErrorIs(t, err, zk.ErrConnectionClosed, "round %d: the last error was dropped", round)
			require.EqualValues(t, 1, calls.Load(), "round %d", round)
		}
	})

	t.Run("an ended context runs nothing", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		var calls atomic.Int32
		err := forever.Do(cctx, func(context.Context) error { calls.Add(1); return nil })
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, calls.Load())
	})

	t.Run("the policy gives up", func(t *testing.T) {
		var calls atomic.Int32
		err := twice.Do(ctx, func(context.Context) error {
			calls.Add(1)
			return zk.ErrConnectionClosed
		})
		assert.ErrorIs(t, err, zk.ErrConnectionClosed)
		assert.EqualValues(t, 3, calls.Load(), "one attempt and two retries")
	})

	t.Run("invalid operation", func(t *testing.T) {
		assert.ErrorIs(t, patient.Do(ctx, nil), zkrecipes.ErrInvalidArgument)
	})

	t.Run("Close ends the loop", func(t *testing.T) {
		// A client of its own: this subtest closes it.
		fp, err := retry.Forever(10 * time.Millisecond)
		require.NoError(t, err)
		c := connect(t, clientOpts{ns: ns, extra: []client.Option{client.WithRetryPolicy(fp)}})
		var calls atomic.Int32
		done := make(chan error, 1)
		go func() {
			done <- c.Do(ctx, func(context.Context) error {
				calls.Add(1)
				return zk.ErrConnectionClosed
			})
		}()
		time.Sleep(100 * time.Millisecond)
		require.NoError(t, c.Close())
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Do kept going after Close")
		}
		assert.ErrorIs(t, err, zkrecipes.ErrClosed)
		assert.ErrorIs(t, err, zk.ErrConnectionClosed)
	})
}
