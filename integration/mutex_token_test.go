package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestMutexTokensIncrease checks that fencing tokens grow strictly across 50
// successive holders (five handles on five clients, round robin), and across
// the deletion of the lock's container directory and its re-creation.
func TestMutexTokensIncrease(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	ms := make([]*mutex.Mutex, 5)
	for i := range ms {
		ms[i] = mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	}
	var last int64
	for i := range 50 {
		m := ms[i%len(ms)]
		require.NoError(t, m.Lock(ctx))
		tok := mxTok(m)
		require.Greater(t, tok, last, "holder %d", i)
		_, st, err := obs.Exists(ctx, m.Node())
		require.NoError(t, err)
		require.Equal(t, st.Czxid, tok, "the token is the node's creation zxid")
		last = tok
		require.NoError(t, m.Unlock(ctx))
		require.Zero(t, mxTok(m), "token after Unlock")
	}

	eventually(t, 10*time.Second, "the empty lock directory is reaped", func() bool {
		return !exists(t, obs, mxLockPath)
	})
	m := ms[0]
	require.NoError(t, m.Lock(ctx))
	require.Greater(t, mxTok(m), last, "token after the directory was re-created")
	require.NoError(t, m.Unlock(ctx))
}

// TestMutexDirectoryReaped checks that the lock directory, a container,
// disappears once every contender is gone, however they left: released,
// failed TryLock, cancelled wait.
func TestMutexDirectoryReaped(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	b := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	c := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	d := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	require.NoError(t, a.Lock(ctx))
	actx, acancel := a.Context(ctx)
	defer acancel()
	require.NoError(t, a.Lock(actx)) // reentrant
	rb := mxLockAsync(ctx, b)
	mxWaitQueued(t, a, 2)
	cctx, cancel := context.WithCancel(ctx)
	rc := mxLockAsync(cctx, c)
	mxWaitQueued(t, a, 3)
	require.ErrorIs(t, d.TryLock(ctx), zkrecipes.ErrLocked)
	cancel()
	require.ErrorIs(t, await(t, rc, 10*time.Second, "cancelled waiter").err, context.Canceled)
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, await(t, rb, 10*time.Second, "b").err)
	require.True(t, exists(t, obs, mxLockPath), "the directory went while b held")
	require.NoError(t, b.Unlock(ctx))

	start := time.Now()
	eventually(t, 10*time.Second, "the empty lock directory is reaped", func() bool {
		return !exists(t, obs, mxLockPath)
	})
	t.Logf("directory reaped %v after the last release", time.Since(start))
}
