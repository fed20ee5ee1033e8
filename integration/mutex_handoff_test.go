package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// mxLinkSettle is how long a link's counters are given to catch up: a link
// counts a request once its write returned, and the reply may be read (and
// Lock return) a moment before that.
const mxLinkSettle = 100 * time.Millisecond

// TestMutexFastHandoff queues W1 and W2 behind a holder H, each on its own
// client and link, and counts what each waiter sends. W1 waits for H; W2
// waits for W1 and also watches H, the node before it.
//
// When H releases, W1 holds without listing the directory again (H was the
// only node ahead of it), and W2, woken by the same deletion, lists once,
// while W1 holds: that early listing shows W1 first. So when W1 releases,
// W2 too holds without a listing. Every handoff costs zero listings, and a
// release wakes at most two waiters (lockq.BenchWakeups is process-wide, so this
// test must not run in parallel with others).
func TestMutexFastHandoff(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	type proc struct {
		link *faultlink.Link
		m    *mutex.Mutex
	}
	newProc := func() proc {
		l := newLink(t)
		return proc{link: l, m: mxNew(t, connect(t, clientOpts{ns: ns, link: l}), mxLockPath)}
	}
	h, w1, w2 := newProc(), newProc(), newProc()

	require.NoError(t, h.m.Lock(ctx))
	r1 := mxLockAsync(ctx, w1.m)
	mxWaitQueued(t, h.m, 2)
	r2 := mxLockAsync(ctx, w2.m)
	mxWaitQueued(t, h.m, 3)
	// A waiter is settled once it has sent its watches: on the node it waits
	// for, and for W2 also on H, the node before W1. (A waiter does not read
	// its own node; a holder does, from the moment it holds.)
	for name, w := range map[string]struct {
		p    proc
		want int64
	}{"W1": {w1, 1}, "W2": {w2, 2}} {
		require.Eventually(t, func() bool {
			return w.p.link.Requests(faultlink.OpGetData) >= w.want
		}, 10*time.Second, pollEvery, name+" sets its watches")
	}
	time.Sleep(mxLinkSettle)
	require.Equal(t, int64(1), w1.link.Requests(faultlink.OpGetData), "W1 watches H, nothing else")
	require.Equal(t, int64(2), w2.link.Requests(faultlink.OpGetData), "W2 watches W1 and H, nothing else")
	l1, l2 := listings(w1.link), listings(w2.link)
	require.Equal(t, int64(1), l1)
	require.Equal(t, int64(1), l2)
	wake := lockq.BenchWakeups()

	require.NoError(t, h.m.Unlock(ctx))
	require.NoError(t, await(t, r1, 10*time.Second, "W1").err)
	require.Eventually(t, func() bool { return listings(w2.link) == l2+1 }, 10*time.Second, pollEvery, "W2 lists early")
	time.Sleep(mxLinkSettle)
	require.Equal(t, l1, listings(w1.link), "W1 listed the directory again after H released")
	require.Equal(t, wake+2, lockq.BenchWakeups(), "H's release wakes W1 (its grant) and W2 (its early listing), no one else")
	require.Equal(t, l2+1, listings(w2.link), "W2 lists exactly once when H goes")
	pending(t, r2, 0, "W2 (while W1 holds)")

	require.NoError(t, w1.m.Unlock(ctx))
	require.NoError(t, await(t, r2, 10*time.Second, "W2").err)
	time.Sleep(mxLinkSettle)
	assert.Equal(t, l2+1, listings(w2.link), "W2 listed the directory again after W1 released")
	require.Equal(t, wake+3, lockq.BenchWakeups(), "W1's release wakes only W2")
	require.NoError(t, w2.m.Unlock(ctx))
}
