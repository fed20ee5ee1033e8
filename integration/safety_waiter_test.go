package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// A waiter survives the loss of its session; a holder
// never re-acquires silently. Ported from Curator's TestInterProcessMutexBase.

// TestSafetyWaiterSurvivesKilledSession is Curator's testKilledSession: two
// handles on ONE client (1.5 s session, behind a link), one holds, the other
// waits. The link is cut until the client gives the session up, then
// restored. The holder's Lost closes and its Token reports ErrLost; the
// waiter's single Lock call returns nil by itself, holding a node of the NEW
// session.
func TestSafetyWaiterSurvivesKilledSession(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: mxShortSession})
	sid1 := c.Session().ID()
	holder := mxNew(t, c, mxLockPath)
	waiter := mxNew(t, c, mxLockPath)

	require.NoError(t, holder.Lock(ctx))
	res := mxLockAsync(ctx, waiter)
	waitChildren(t, obs, mxLockPath, 2) // the waiter queues

	link.Cut()
	require.True(t, waitClosed(holder.Lost(), 5*time.Second), "the holder's Lost did not close after the cut")
	require.Eventually(t, func() bool {
		return errors.Is(c.Session().Err(), zkrecipes.ErrSessionLost)
	}, 15*time.Second, pollEvery, "the client gives its session up")
	time.Sleep(time.Second) // the server has expired it too by now
	pending(t, res, 0, "the waiter's Lock after its session was lost (it must keep waiting)")
	link.Restore()

	r := await(t, res, 30*time.Second, "the waiter's Lock after the new session")
	require.NoError(t, r.err, "a waiter must re-queue after losing its session, not fail")
	require.True(t, waiter.IsHeld())
	sid2 := c.Session().ID()
	require.NotEqual(t, sid1, sid2, "the client should be on a new session")
	ok, st, err := c.Exists(ctx, waiter.Node())
	require.NoError(t, err)
	require.True(t, ok, "the waiter's node %s does not exist", waiter.Node())
	require.Equal(t, sid2, st.EphemeralOwner, "the waiter holds a node of session 0x%x, not of the live one", st.EphemeralOwner)
	tok, err := waiter.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, st.Czxid, tok)
	eventually(t, 10*time.Second, "only the waiter's node is left", func() bool {
		kids := children(t, obs, mxLockPath)
		return len(kids) == 1 && kids[0] == mxBase(waiter.Node())
	})

	// The holder did not silently come back.
	require.True(t, closed(holder.Lost()))
	_, err = holder.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	t.Logf("Unlock of the lost holding: %v", holder.Unlock(ctx))
	require.False(t, holder.IsHeld())

	require.NoError(t, waiter.Unlock(ctx))
	waitChildren(t, obs, mxLockPath, 0) // the lock directory is empty
}

// TestSafetyWaitingProcessKilledServer is Curator's
// testWaitingProcessKilledServer on a dedicated one-server cluster: one
// client holds, another waits, the server is stopped and restarted. Both
// eventually acquire and release, and nothing is left in the directory. It
// runs twice: with the server down for less than the session timeout (the
// sessions survive) and for longer (both clients lose their sessions: the
// waiter must re-queue on its new session, and the holder's Lost closes).
func TestSafetyWaitingProcessKilledServer(t *testing.T) {
	noLeaks(t)
	cl := zktest.ForTest(t)
	t.Run("within session", func(t *testing.T) {
		sfKilledServerRound(t, cl, 10*time.Second, 3*time.Second)
	})
	t.Run("past session", func(t *testing.T) {
		sfKilledServerRound(t, cl, 3*time.Second, 6*time.Second)
	})
}

func sfKilledServerRound(t *testing.T, cl *zktest.Cluster, timeout, down time.Duration) {
	ns := namespace(t)
	ctx := ctxT(t, 150*time.Second)
	// The test is about surviving, not about a policy's bound: give both
	// clients one that outlasts the outage.
	pol, err := retry.UntilElapsed(60*time.Second, 250*time.Millisecond)
	require.NoError(t, err)
	opts := clientOpts{cluster: cl, ns: ns, timeout: timeout, extra: []client.Option{client.WithRetryPolicy(pol)}}
	hc, wc := connect(t, opts), connect(t, opts)
	holder, waiter := mxNew(t, hc, mxLockPath), mxNew(t, wc, mxLockPath)
	hsid, wsid := hc.Session().ID(), wc.Session().ID()

	require.NoError(t, holder.Lock(ctx))
	res := mxLockAsync(ctx, waiter)
	mxWaitQueued(t, holder, 2)

	require.NoError(t, cl.StopServer(ctx, 0))
	stoppedAt := time.Now()
	require.True(t, waitClosed(holder.Lost(), timeout), "the holder's Lost did not close with the server down")
	time.Sleep(time.Until(stoppedAt.Add(down)))
	pending(t, res, 0, "the waiter's Lock while the server is down")
	require.NoError(t, cl.StartServer(ctx, 0))
	t.Logf("server down for %v (session timeout %v)", time.Since(stoppedAt), timeout)

	// The holder releases: Unlock hands the delete to the background if it
	// cannot finish at once, and releases the handle in any case.
	uctx, ucancel := context.WithTimeout(ctx, 30*time.Second)
	defer ucancel()
	err = holder.Unlock(uctx)
	t.Logf("holder's Unlock after the restart: %v", err)
	if err != nil {
		require.True(t, errors.Is(err, zkrecipes.ErrDeletePending) || errors.Is(err, zkrecipes.ErrLost),
			"holder's Unlock: %v", err)
	}
	require.False(t, holder.IsHeld())

	r := await(t, res, 60*time.Second, "the waiter's Lock after the restart")
	require.NoError(t, r.err, "the waiter must survive the server's restart")
	require.True(t, waiter.IsHeld())
	ok, st, err := wc.Exists(ctx, waiter.Node())
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, wc.Session().ID(), st.EphemeralOwner, "the waiter holds a node of another session")
	t.Logf("sessions: holder 0x%x -> 0x%x, waiter 0x%x -> 0x%x",
		uint64(hsid), uint64(hc.Session().ID()), uint64(wsid), uint64(wc.Session().ID()))
	require.NoError(t, waiter.Unlock(ctx))

	// The old holder's handle acquires and releases again too.
	require.NoError(t, holder.Lock(ctx))
	require.NoError(t, holder.Unlock(ctx))

	require.Eventually(t, func() bool {
		kids, err := tryChildren(hc, mxLockPath)
		return err == nil && len(kids) == 0
	}, 30*time.Second, pollEvery, "the lock directory is empty")
}
