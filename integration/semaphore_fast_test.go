package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// Tests of the semaphore's fast path (recipes/semaphore/fast.go): one lease
// in one round trip while there is room, Curator's protocol otherwise.

// TestSemaphoreFastPath: with room, Acquire sends one create (its lease
// node) and one listing, and never touches locks/; TryAcquire on a full
// semaphore fails with ErrNoLeases and leaves no node, and the next acquire
// goes Curator's way (a locks/ node) until a grant shows room again.
func TestSemaphoreFastPath(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	obs := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	s := semNew(t, c, 3)
	creates := func() int64 {
		return link.Requests(faultlink.OpCreate) + link.Requests(faultlink.OpCreate2) + link.Requests(faultlink.OpCreateContainer)
	}
	// Another client's lease keeps leases/ from being reaped (a container
	// re-made would add a create to the counts).
	keeper, err := semNew(t, obs, 3).Acquire(ctx)
	require.NoError(t, err)

	c0, l0 := creates(), listings(link)
	first, err := s.Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), creates()-c0, "one create: the lease node")
	assert.LessOrEqual(t, listings(link)-l0, int64(2), "one listing (a second only if the first went ahead of the create)")
	assert.Empty(t, children(t, obs, semLocks), "the fast path takes no locks/ node")
	second, err := s.Acquire(ctx)
	require.NoError(t, err)

	// Full: the fast path declines and deletes its node; TryAcquire's
	// Curator way then fails at once.
	_, err = s.TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrNoLeases)
	eventually(t, 10*time.Second, "only the three holders' nodes", func() bool {
		return len(children(t, obs, semLeases)) == 3 && len(children(t, obs, semLocks)) == 0
	})
	require.NoError(t, first.Release(ctx))
	require.NoError(t, second.Release(ctx))
	waitChildren(t, obs, semLeases, 1)

	// After a decline, Curator's way: a locks/ node (and maybe its
	// container again) besides the lease node. That grant shows room to
	// spare, so the next acquire is fast again.
	c0 = creates()
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, creates()-c0, int64(2), "after a decline: a locks/ node and the lease node")
	require.NoError(t, l.Release(ctx))
	waitChildren(t, obs, semLeases, 1)
	c0 = creates()
	l, err = s.Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), creates()-c0, "fast again: the lease node only")
	require.NoError(t, l.Release(ctx))
	require.NoError(t, keeper.Release(ctx))
	semNoNodes(t, obs)
}

// TestSemaphoreFastPathDoesNotOvertakeWaiter: with a limit of 1, a waiter W
// waits for room (its lease node is there, counted by everyone). A newcomer
// N's fast path counts W's node, so it cannot take the lease W waits for:
// when the holder releases, W is granted while N still waits; N only after W.
func TestSemaphoreFastPathDoesNotOvertakeWaiter(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	obs := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	h := semNew(t, connect(t, clientOpts{ns: ns}), 1)
	w := semNew(t, connect(t, clientOpts{ns: ns}), 1)
	n := semNew(t, connect(t, clientOpts{ns: ns}), 1)

	held, err := h.Acquire(ctx)
	require.NoError(t, err)
	wres := semAcquireAsync(ctx, w, 1)
	// W waits for room on Curator's way. (Started while W's fast-path node
	// still existed, N could reach the mutex first and rightly be granted
	// first.)
	semWaiting(t, obs, 2)
	nres := semAcquireAsync(ctx, n, 1)
	eventually(t, 10*time.Second, "N queued for the locks mutex behind W", func() bool {
		return len(children(t, obs, semLocks)) == 2
	})
	pending(t, wres, 200*time.Millisecond, "W while the holder holds")

	require.NoError(t, held.Release(ctx))
	wr := await(t, wres, 10*time.Second, "W once the holder released")
	require.NoError(t, wr.err)
	pending(t, nres, 300*time.Millisecond, "N while W holds")
	semReleaseAll(t, ctx, wr.leases)
	nr := await(t, nres, 10*time.Second, "N once W released")
	require.NoError(t, nr.err)
	semReleaseAll(t, ctx, nr.leases)
	semNoNodes(t, obs)
}
