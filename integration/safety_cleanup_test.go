package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// A node a lock created never outlives its purpose while
// its session lives. Each test leaves an abandoned node behind a connection
// that stays down longer than the client's retry policy (or the old fixed
// cleanup deadline) allows, brings the SAME session back, and requires that
// the node goes, so that another client (and the handle itself) can lock.
//
// The helpers of the safety_*_test.go files start with "sf".

// TestSafetyCleanupDroppedListing reproduces a lock node left behind: a client
// without retries (retry.NTimes(0, 0)) and a 15 s session loses the reply to
// its acquire's listing, and the link stays cut for 3 s. Lock fails; the
// lock- node it made is still on the server while the link is down; once the
// same session is back, the node goes, another client's TryLock wins and the
// pending-delete count returns to 0.
func TestSafetyCleanupDroppedListing(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 15 * time.Second,
		extra: []client.Option{client.WithRetryPolicy(sfNTimes(t, 0, 0))}})
	sid := c.Session().ID()
	m := mxNew(t, c, mxLockPath)

	// go-zookeeper lists with getChildren2; arm both listing opcodes.
	fired := link.DropReplyTo(faultlink.OpGetChildren, faultlink.OpGetChildren2)
	cutAt := make(chan time.Time, 1)
	go func() {
		select {
		case <-fired:
			link.Cut()
			cutAt <- time.Now()
		case <-ctx.Done():
		}
	}()
	lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := m.Lock(lctx)
	require.True(t, closed(fired), "the acquire never listed the lock directory (Lock: %v)", err)
	cut := <-cutAt
	require.Error(t, err, "Lock must fail: its listing's reply was lost and the policy allows no retry")
	require.False(t, m.IsHeld())
	t.Logf("Lock failed %v after the cut: %v", time.Since(cut), err)

	if time.Since(cut) < 2500*time.Millisecond {
		// While the link is down the node is still there (the premise of the
		// test), and the client knows it owes a delete.
		require.Len(t, sfOwnedBy(t, obs, mxLockPath, sid), 1, "the acquire's node is not on the server")
		require.Eventually(t, func() bool {
			return c.PendingDeletes() >= 1
		}, 2*time.Second, pollEvery, "a pending delete while the link is cut")
	}
	time.Sleep(time.Until(cut.Add(3 * time.Second)))
	link.Restore()

	sfWaitReconnected(t, c, sid)
	eventually(t, 10*time.Second, "the orphaned node of the failed acquire is deleted", func() bool {
		return len(sfOwnedBy(t, obs, mxLockPath, sid)) == 0
	})
	other := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, other.TryLock(ctx), "another client is still blocked after the same session came back")
	require.NoError(t, other.Unlock(ctx))
	require.Eventually(t, func() bool { return c.PendingDeletes() == 0 }, 10*time.Second, pollEvery, "PendingDeletes back to 0")

	// The failed handle works again.
	require.NoError(t, m.TryLock(ctx))
	require.NoError(t, m.Unlock(ctx))
}

// TestSafetyCleanupUnlockWhileCut unlocks while the link is cut (20 s
// session, retry.NTimes(2, 200ms)): Unlock returns within its context with an
// error wrapping zkrecipes.ErrDeletePending and the handle no longer holds; the
// node stays on the server while the link is down (8 s, well past the
// policy's last attempt: go-zookeeper fails a request queued on a cut link
// about once a second, so a policy-bound delete runs out about 5 s after
// the cut, and a shorter cut could end while its last attempt is still
// queued), and goes once the same session is back: the handle and a second
// client both acquire.
func TestSafetyCleanupUnlockWhileCut(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 20 * time.Second,
		extra: []client.Option{client.WithRetryPolicy(sfNTimes(t, 2, 200*time.Millisecond))}})
	sid := c.Session().ID()
	m := mxNew(t, c, mxLockPath)
	require.NoError(t, m.Lock(ctx))
	node := m.Node()

	link.Cut()
	cutAt := time.Now()
	const unlockBudget = 2 * time.Second
	uctx, ucancel := context.WithTimeout(ctx, unlockBudget)
	defer ucancel()
	done := make(chan error, 1)
	go func() { done <- m.Unlock(uctx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(unlockBudget + 5*time.Second):
		t.Fatalf("Unlock with the link cut did not return within %v of its %v context", 5*time.Second, unlockBudget)
	}
	t.Logf("Unlock returned %v after the cut: %v", time.Since(cutAt), err)
	require.ErrorIs(t, err, zkrecipes.ErrDeletePending)
	require.False(t, m.IsHeld(), "the handle must be released even though the delete is pending")
	require.True(t, closed(m.Lost()))
	_, terr := m.Token(ctx)
	require.ErrorIs(t, terr, zkrecipes.ErrNotHeld)

	require.Equal(t, []string{mxBase(node)}, sfOwnedBy(t, obs, mxLockPath, sid),
		"the node should still be on the server while the link is cut")
	require.GreaterOrEqual(t, c.PendingDeletes(), 1)

	time.Sleep(time.Until(cutAt.Add(8 * time.Second)))
	link.Restore()
	sfWaitReconnected(t, c, sid)
	eventually(t, 10*time.Second, "the released node is deleted once the session is back", func() bool {
		return !exists(t, obs, node)
	})

	lctx, lcancel := context.WithTimeout(ctx, 15*time.Second)
	defer lcancel()
	require.NoError(t, m.Lock(lctx), "the handle itself is blocked by its own old node")
	require.NoError(t, m.Unlock(ctx))
	second := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, second.Lock(lctx), "a second client is blocked by the old node")
	require.NoError(t, second.Unlock(ctx))
	require.Eventually(t, func() bool { return c.PendingDeletes() == 0 }, 10*time.Second, pollEvery, "PendingDeletes back to 0")
}

// TestSafetyCleanupCancelledLockDuringBlackhole cancels a Lock that waits
// behind another client's holding while the waiter's link is blackholed
// (20 s session, NTimes(2, 200ms)). Lock returns the cancellation promptly,
// during the blackhole (the queue bounds its wait for the cleanup at 2 s);
// the link is then cut (so every delete attempt fails fast and the policy
// runs out) and restored 7 s after the blackhole began, within the session.
// The waiter's node is on the server while the link is down and gone once the
// same session is back; when the holder unlocks, a second client acquires.
func TestSafetyCleanupCancelledLockDuringBlackhole(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	holder := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	require.NoError(t, holder.Lock(ctx))

	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 20 * time.Second,
		extra: []client.Option{client.WithRetryPolicy(sfNTimes(t, 2, 200*time.Millisecond))}})
	sid := c.Session().ID()
	m := mxNew(t, c, mxLockPath)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := mxLockAsync(lctx, m)
	ps := mxWaitQueued(t, holder, 2)
	waiterNode := ps[1].Name
	time.Sleep(100 * time.Millisecond) // let it settle into waiting

	link.Blackhole()
	holeAt := time.Now()
	time.Sleep(500 * time.Millisecond)
	cancel()
	cancelAt := time.Now()
	var r mxResult
	select {
	case r = <-res:
	case <-time.After(sfPrompt):
		t.Errorf("a Lock cancelled during a blackhole did not return within %v of the cancel", sfPrompt)
		link.Cut()
		r = await(t, res, 30*time.Second, "the cancelled Lock after the cut")
	}
	link.Cut()
	t.Logf("cancelled Lock returned %v after the cancel: %v", r.at.Sub(cancelAt), r.err)
	require.ErrorIs(t, r.err, context.Canceled)
	require.False(t, m.IsHeld())

	require.Equal(t, []string{waiterNode}, sfOwnedBy(t, obs, mxLockPath, sid),
		"the waiter's node should still be on the server while the link is down")
	time.Sleep(time.Until(holeAt.Add(7 * time.Second)))
	link.Restore()
	sfWaitReconnected(t, c, sid)
	eventually(t, 10*time.Second, "the cancelled waiter's node is deleted once the session is back", func() bool {
		return len(sfOwnedBy(t, obs, mxLockPath, sid)) == 0
	})
	require.Equal(t, []string{mxBase(holder.Node())}, children(t, obs, mxLockPath))

	second := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	sres := mxLockAsync(ctx, second)
	mxWaitQueued(t, holder, 2)
	require.NoError(t, holder.Unlock(ctx))
	require.NoError(t, await(t, sres, 15*time.Second, "second client after the holder's Unlock").err)
	require.NoError(t, second.Unlock(ctx))
	require.Eventually(t, func() bool { return c.PendingDeletes() == 0 }, 10*time.Second, pollEvery, "PendingDeletes back to 0")
}

// TestSafetyCleanupUnlockDuringBlackhole unlocks while the link is
// blackholed (20 s session, NTimes(2, 200ms)): as with a cut link, Unlock
// returns within its context (2 s, plus sfPrompt's margin) with an error
// wrapping zkrecipes.ErrDeletePending, and the node goes once the link is
// restored within the session.
func TestSafetyCleanupUnlockDuringBlackhole(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 20 * time.Second,
		extra: []client.Option{client.WithRetryPolicy(sfNTimes(t, 2, 200*time.Millisecond))}})
	sid := c.Session().ID()
	m := mxNew(t, c, mxLockPath)
	require.NoError(t, m.Lock(ctx))
	node := m.Node()

	link.Blackhole()
	holeAt := time.Now()
	const unlockBudget = 2 * time.Second
	uctx, ucancel := context.WithTimeout(ctx, unlockBudget)
	defer ucancel()
	done := make(chan error, 1)
	go func() { done <- m.Unlock(uctx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(unlockBudget + sfPrompt):
		t.Errorf("Unlock during a blackhole did not return within %v of its %v context", sfPrompt, unlockBudget)
		link.Cut()
		err = <-done
	}
	t.Logf("Unlock returned %v after the blackhole began: %v", time.Since(holeAt), err)
	require.ErrorIs(t, err, zkrecipes.ErrDeletePending)
	require.False(t, m.IsHeld())
	require.True(t, exists(t, obs, node), "the node should still be on the server while the link is down")

	time.Sleep(time.Until(holeAt.Add(5 * time.Second)))
	link.Restore()
	sfWaitReconnected(t, c, sid)
	eventually(t, 10*time.Second, "the released node is deleted once the session is back", func() bool {
		return !exists(t, obs, node)
	})
	second := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	lctx, lcancel := context.WithTimeout(ctx, 15*time.Second)
	defer lcancel()
	require.NoError(t, second.Lock(lctx))
	require.NoError(t, second.Unlock(ctx))
	require.Eventually(t, func() bool { return c.PendingDeletes() == 0 }, 10*time.Second, pollEvery, "PendingDeletes back to 0")
}

// sfPrompt is the margin a call that must return "promptly" gets beyond the
// bound it documents (its context, or the queue's 2 s cleanup wait): far less
// than the 2/3 of a session timeout after which a blackholed connection is
// dropped, far more than scheduling noise.
const sfPrompt = 5 * time.Second

// sfNTimes is retry.NTimes, failing the test on error.
func sfNTimes(t testing.TB, n int, sleep time.Duration) retry.Policy {
	t.Helper()
	p, err := retry.NTimes(n, sleep)
	require.NoError(t, err)
	return p
}

// sfOwnedBy lists (sorted) the children of dir, as obs sees them, whose
// ephemeral owner is session sid.
func sfOwnedBy(t testing.TB, obs *client.Client, dir string, sid int64) []string {
	t.Helper()
	var out []string
	for _, kid := range children(t, obs, dir) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ok, st, err := obs.Exists(ctx, dir+"/"+kid)
		cancel()
		require.NoError(t, err)
		if ok && st.EphemeralOwner == sid {
			out = append(out, kid)
		}
	}
	return out
}

// sfWaitReconnected waits until c is connected again and requires that its
// session is still sid: the fault did not cost the session.
func sfWaitReconnected(t testing.TB, c *client.Client, sid int64) {
	t.Helper()
	require.Eventually(t, func() bool {
		s := c.State()
		return s == client.StateReconnected || s == client.StateConnected
	}, 15*time.Second, pollEvery, "the client reconnects")
	require.Equal(t, sid, c.Session().ID(), "the session did not survive the fault")
	require.NoError(t, c.Session().Err())
}

// sfCzxid is the creation zxid of the node at p, as c sees it.
func sfCzxid(t testing.TB, c *client.Client, p string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, st, err := c.Exists(ctx, p)
	require.NoError(t, err)
	require.True(t, ok, "%s does not exist", p)
	return st.Czxid
}
