package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestTimedOutLocksLeaveNoWatches (a soak test): many Locks
// with short timeouts against a long-held lock must not grow the client's
// watches without bound. Each waiter's data watch on the holder's node is a
// shared client.Watch that it gives up when it stops waiting, so after 300
// timed-out Locks the client holds at most one server watch (on the
// holder's node) and no waiting subscriber; and a waiter that joins that
// shared watch is still woken by the holder's release.
func TestTimedOutLocksLeaveNoWatches(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	holderC := connect(t, clientOpts{ns: ns})
	c := connect(t, clientOpts{ns: ns})
	holder := mxNew(t, holderC, "/lock")
	require.NoError(t, holder.Lock(ctx))
	m := mxNew(t, c, "/lock")

	timedOut := 0
	for range 300 {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
		err := m.Lock(lctx)
		cancel()
		require.Error(t, err, "Lock succeeded while the lock is held")
		if errors.Is(err, context.DeadlineExceeded) {
			timedOut++
		}
	}
	require.NotZero(t, timedOut)
	eventually(t, 10*time.Second, "the abandoned nodes to go", func() bool {
		return c.PendingDeletes() == 0 && len(children(t, holderC, "/lock")) == 1
	})
	watches, waiting := c.DataWatches()
	t.Logf("after %d timed-out Locks: %d server data watches, %d waiting", timedOut, watches, waiting)
	require.LessOrEqual(t, watches, 1, "server data watches left by timed-out Locks")
	require.Zero(t, waiting, "subscribers left by timed-out Locks")

	// A waiter that joins the watch the timed-out ones left is woken.
	res := make(chan error, 1)
	go func() { res <- m.Lock(ctx) }()
	waitChildren(t, holderC, "/lock", 2)
	pending(t, res, 100*time.Millisecond, "Lock while the lock is held")
	require.NoError(t, holder.Unlock(ctx))
	require.NoError(t, await(t, res, 10*time.Second, "Lock after the release"))
	require.NoError(t, m.Unlock(ctx))
	watches, waiting = c.DataWatches()
	require.Zero(t, waiting)
	require.Zero(t, watches, "the fired watch is still counted")
}

// TestReadersShareOneWatch: read handles on one client queued one after
// another behind the same writer watch the writer's node through one
// shared server watch (callers asking at the same instant may each set
// one; later ones join), and the writer's release wakes them all.
func TestReadersShareOneWatch(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	wc := connect(t, clientOpts{ns: ns})
	rc := connect(t, clientOpts{ns: ns})
	w, err := rwlock.New(wc, "/rw")
	require.NoError(t, err)
	require.NoError(t, w.Lock(ctx))
	const readers = 5
	var rs []*rwlock.RWMutex
	res := make(chan error, readers)
	for range readers {
		r, err := rwlock.New(rc, "/rw")
		require.NoError(t, err)
		rs = append(rs, r)
		go func() { res <- r.RLock(ctx) }()
		n := len(rs)
		eventually(t, 10*time.Second, "the reader waiting on the writer", func() bool {
			_, waiting := rc.DataWatches()
			return waiting == n
		})
	}
	watches, _ := rc.DataWatches()
	t.Logf("%d readers wait through %d server watch(es)", readers, watches)
	require.Equal(t, 1, watches, "readers that did not share the writer's watch")
	require.NoError(t, w.Unlock(ctx))
	for i := range readers {
		require.NoError(t, await(t, res, 10*time.Second, fmt.Sprintf("reader %d", i)))
	}
	for _, r := range rs {
		require.NoError(t, r.RUnlock(ctx))
	}
}
