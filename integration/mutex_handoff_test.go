package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
	"github.com/go-zkrecipes/zkrecipes/internal/queue"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// mxListings counts the directory listings a client sent through its link.
func mxListings(l *zkharness.Link) int64 {
	return l.Requests(zkharness.OpGetChildren2) + l.Requests(zkharness.OpGetChildren)
}

// mxLinkSettle is how long a link's counters are given to catch up: a link
// counts a request once its write returned, and the reply may be read (and
// Lock return) a moment before that.
const mxLinkSettle = 100 * time.Millisecond

// TestMutexFastHandoff queues W1 and W2 behind a holder H, each on its own
// client and link, and counts what each waiter sends: when H releases, W1
// holds without listing the directory again, and likewise W2 when W1
// releases. Each release wakes exactly one waiter (queue.Wakeups is counted
// process-wide, so this test must not run in parallel with others).
func TestMutexFastHandoff(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	type proc struct {
		link *zkharness.Link
		m    *mutex.Mutex
	}
	newProc := func() proc {
		l := zkharness.NewLink()
		return proc{link: l, m: mxNew(t, connect(t, clientOpts{ns: ns, link: l}), mxLockPath)}
	}
	h, w1, w2 := newProc(), newProc(), newProc()

	require.NoError(t, h.m.Lock(ctx))
	r1 := mxLockAsync(ctx, w1.m)
	mxWaitQueued(t, h.m, 2)
	r2 := mxLockAsync(ctx, w2.m)
	mxWaitQueued(t, h.m, 3)
	// A waiter is settled once it sent the watch on the node it waits for:
	// its own node's watch and that one make two data reads.
	for name, w := range map[string]proc{"W1": w1, "W2": w2} {
		mxEventually(t, 10*time.Second, name+" sets its watch", func() bool {
			return w.link.Requests(zkharness.OpGetData) >= 2
		})
	}
	l1, l2 := mxListings(w1.link), mxListings(w2.link)
	require.Positive(t, l1)
	require.Positive(t, l2)
	wake, lists := queue.Wakeups(), queue.Listings()

	require.NoError(t, h.m.Unlock(ctx))
	require.NoError(t, mxAwait(t, r1, 10*time.Second, "W1").err)
	time.Sleep(mxLinkSettle) // also the time a wrongly woken W2 needs to show
	require.Equal(t, l1, mxListings(w1.link), "W1 listed the directory again after H released")
	require.Equal(t, wake+1, queue.Wakeups(), "H's release should wake exactly one waiter")
	require.Equal(t, l2, mxListings(w2.link), "W2 listed the directory when H released")
	require.Equal(t, wake+1, queue.Wakeups(), "H's release woke W2 too")
	mxPending(t, r2, "W2 (while W1 holds)")

	require.NoError(t, w1.m.Unlock(ctx))
	require.NoError(t, mxAwait(t, r2, 10*time.Second, "W2").err)
	time.Sleep(mxLinkSettle)
	// Non-fatal, so that the wakeup count below is checked as well.
	assert.Equal(t, l2, mxListings(w2.link), "W2 listed the directory again after W1 released")
	require.Equal(t, wake+2, queue.Wakeups(), "W1's release should wake exactly one waiter")
	assert.Equal(t, lists, queue.Listings(), "listings during the two handoffs")
	require.NoError(t, w2.m.Unlock(ctx))
}
