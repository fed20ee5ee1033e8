package integration

import (
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestMutexRevocation has a third client revoke the holder's node: the
// holder's revocation listener runs, unlocks, and the waiter acquires. A
// holder without a listener ignores the request and keeps the lock.
func TestMutexRevocation(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	revoker := connect(t, clientOpts{ns: ns})

	var (
		holder    *mutex.Mutex
		calls     = make(chan struct{}, 10)
		unlockErr = make(chan error, 1)
		once      sync.Once
	)
	holder = mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath, mutex.WithRevocationListener(func() {
		calls <- struct{}{}
		once.Do(func() { unlockErr <- holder.Unlock(ctx) })
	}))
	waiter := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	require.NoError(t, holder.Lock(ctx))
	res := mxLockAsync(ctx, waiter)
	ps := mxWaitQueued(t, holder, 2)
	require.Equal(t, holder.Node(), ps[0].Path)

	require.NoError(t, mutex.Revoke(ctx, revoker, ps[0].Path))
	select {
	case <-calls:
	case <-time.After(10 * time.Second):
		t.Fatal("the revocation listener was not called")
	}
	select {
	case err := <-unlockErr:
		require.NoError(t, err, "Unlock in the revocation listener")
	case <-time.After(10 * time.Second):
		t.Fatal("Unlock in the revocation listener did not return")
	}
	require.NoError(t, await(t, res, 10*time.Second, "waiter after the revocation").err)
	require.False(t, holder.IsHeld())

	// Revoking a node that is gone reports it.
	require.ErrorIs(t, mutex.Revoke(ctx, revoker, ps[0].Path), zk.ErrNoNode)

	// The waiter, now holder, has no listener: it keeps the lock.
	lost := waiter.Lost()
	require.NoError(t, mutex.Revoke(ctx, revoker, waiter.Node()))
	time.Sleep(300 * time.Millisecond)
	require.True(t, waiter.IsHeld())
	require.False(t, closed(lost), "a revocation request without a listener made Lost close")
	require.ErrorIs(t, holder.TryLock(ctx), zkrecipes.ErrLocked)
	require.NoError(t, waiter.Unlock(ctx))
	require.Len(t, calls, 0, "the listener ran more than once")
}
