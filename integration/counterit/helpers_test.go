package counterit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// oneTime is Curator's RetryOneTime(1), the policy of most of Curator's
// counter tests.
func oneTime(t testing.TB) retry.Policy {
	p, err := retry.OneTime(time.Millisecond)
	require.NoError(t, err)
	return p
}

// newCounter makes a counter at path on c, failing the test on error.
func newCounter(t testing.TB, c *client.Client, path string, opts ...counter.Option) *counter.Counter {
	t.Helper()
	ct, err := counter.New(c, path, opts...)
	require.NoError(t, err)
	return ct
}

// value reads the counter's node with c: its value and version.
func value(t testing.TB, ctx context.Context, ct *counter.Counter) (int64, int32) {
	t.Helper()
	r, err := ct.Get(ctx)
	require.NoError(t, err)
	require.True(t, r.Succeeded)
	return r.PostValue, r.Version
}

// requireResult checks an update's result: succeeded, from pre to post,
// with the tries counted.
func requireResult(t testing.TB, r counter.Result, err error, pre, post int64, optimistic, promoted int) {
	t.Helper()
	require.NoError(t, err)
	require.True(t, r.Succeeded)
	require.Equal(t, pre, r.PreValue, "preValue")
	require.Equal(t, post, r.PostValue, "postValue")
	require.Equal(t, optimistic, r.Stats.OptimisticTries, "optimistic tries")
	require.Equal(t, promoted, r.Stats.PromotedTries, "promoted tries")
}
