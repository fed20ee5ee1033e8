package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// A Lock that fails while its client is disconnected
// waits (up to the queue's abandon bound) for the reconnect and deletes its
// node before it returns, so no other contender queues behind a node
// nobody waits on.
//
// A first client holds the lock. A second client, without retries, has the
// reply to its waiter's listing dropped (the link then closes the connection
// and the client reconnects at once in the same session), so its Lock fails
// while disconnected. The moment Lock returns, a third client sees only the
// holder's node, and the second client is back in the same session with no
// delete left pending.
func TestQueueAbandonDeletesAfterReconnect(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)

	holder := connect(t, clientOpts{ns: ns})
	hm := mxNew(t, holder, mxLockPath)
	require.NoError(t, hm.Lock(ctx))
	defer func() { require.NoError(t, hm.Unlock(ctx)) }()
	obs := connect(t, clientOpts{ns: ns})
	held := children(t, obs, mxLockPath)
	require.Len(t, held, 1, "the holder's node")

	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 15 * time.Second,
		extra: []client.Option{client.WithRetryPolicy(sfNTimes(t, 0, 0))}})
	sid := c.Session().ID()
	m := mxNew(t, c, mxLockPath)

	// go-zookeeper lists with getChildren2; arm both listing opcodes.
	fired := link.DropReplyTo(faultlink.OpGetChildren2, faultlink.OpGetChildren)
	lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	start := time.Now()
	err := m.Lock(lctx)
	took := time.Since(start)
	require.True(t, closed(fired), "the waiter never listed the lock directory (Lock: %v)", err)
	require.Error(t, err, "Lock must fail: its listing's reply was lost and the policy allows no retry")
	require.False(t, m.IsHeld())
	t.Logf("Lock failed after %v: %v", took, err)

	// At once, no Eventually: the failed waiter's node is gone.
	require.Equal(t, held, children(t, obs, mxLockPath),
		"the failed waiter's node is still in the lock directory when Lock returns")
	require.Equal(t, sid, c.Session().ID(), "the client is not back in the same session")
	require.NoError(t, c.Session().Err())
	require.Zero(t, c.PendingDeletes(), "the node was left to the background delete")
}
