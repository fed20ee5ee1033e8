package integration

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// mxShortSession is the session timeout of clients whose session a test
// expires by cutting their link.
const mxShortSession = 1500 * time.Millisecond

// mxLostWatch records when a Lost channel closed and what the client's
// session said at that moment.
type mxLostWatch struct {
	done    chan struct{}
	at      time.Time
	sessErr error
}

func mxWatchLost(lost <-chan struct{}, c *client.Client) *mxLostWatch {
	w := &mxLostWatch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		<-lost
		w.at = time.Now()
		w.sessErr = c.Session().Err()
	}()
	return w
}

// TestMutexHolderSessionExpires cuts the holder's link for longer than its
// session timeout. By default Lost closes at the suspension, while the
// session still lives; the waiter acquires only once the server expired the
// holder's session, after Lost closed. The old handle then no longer
// reports holding (IsHeld) and refuses a reentrant Lock (ErrLost); once the
// link is back, its Unlock releases the handle but reports the loss
// (ErrLost).
func TestMutexHolderSessionExpires(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	link := newLink(t)
	hc := connect(t, clientOpts{ns: ns, link: link, timeout: mxShortSession})
	holder := mxNew(t, hc, mxLockPath)
	waiter := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	require.NoError(t, holder.Lock(ctx))
	hctx, hcancel := holder.Context(ctx)
	defer hcancel()
	res := mxLockAsync(ctx, waiter)
	mxWaitQueued(t, waiter, 2)
	lw := mxWatchLost(holder.Lost(), hc)

	cutAt := time.Now()
	link.Cut()
	r := await(t, res, 20*time.Second, "waiter after the holder's session expired")
	require.NoError(t, r.err)
	require.True(t, waitClosed(lw.done, 5*time.Second), "the old holder's Lost never closed")
	t.Logf("cut -> Lost %v, cut -> waiter acquired %v", lw.at.Sub(cutAt), r.at.Sub(cutAt))
	require.True(t, lw.at.Before(r.at), "the old holder's Lost closed %v after the waiter acquired", lw.at.Sub(r.at))
	require.NoError(t, lw.sessErr, "Lost should close at the suspension, before the session is lost")

	require.False(t, holder.IsHeld(), "IsHeld on a lost holding")
	require.NotEmpty(t, holder.Node(), "a lost holding stays until unlocked")
	require.ErrorIs(t, holder.Lock(hctx), zkrecipes.ErrLost)
	require.Eventually(t, func() bool {
		return errors.Is(hc.Session().Err(), zkrecipes.ErrSessionLost)
	}, 10*time.Second, pollEvery, "the holder's client gives its session up")
	link.Restore()
	require.ErrorIs(t, holder.Unlock(ctx), zkrecipes.ErrLost, "Unlock of a lost holding")
	require.False(t, holder.IsHeld())
	require.Empty(t, holder.Node())
	require.Equal(t, []string{mxBase(waiter.Node())}, children(t, hc, mxLockPath))
	require.NoError(t, waiter.Unlock(ctx))
}

// TestMutexHolderSessionExpiresLostOnSessionLossOnly is the same with
// WithLostOnSessionLossOnly: Lost stays open through the suspension and
// closes only once the session is lost.
func TestMutexHolderSessionExpiresLostOnSessionLossOnly(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	link := newLink(t)
	hc := connect(t, clientOpts{ns: ns, link: link, timeout: mxShortSession})
	holder := mxNew(t, hc, mxLockPath, mutex.WithLostOnSessionLossOnly())
	waiter := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	require.NoError(t, holder.Lock(ctx))
	res := mxLockAsync(ctx, waiter)
	mxWaitQueued(t, waiter, 2)
	lost := holder.Lost()
	lw := mxWatchLost(lost, hc)

	link.Cut()
	require.Eventually(t, func() bool {
		return hc.State() == client.StateSuspended
	}, 5*time.Second, pollEvery, "the holder's client is suspended")
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, client.StateSuspended, hc.State(), "the session was lost too early for this check")
	require.False(t, closed(lost), "Lost closed at the suspension despite WithLostOnSessionLossOnly")

	require.True(t, waitClosed(lw.done, 15*time.Second), "Lost never closed after the session was lost")
	require.ErrorIs(t, lw.sessErr, zkrecipes.ErrSessionLost, "Lost closed before the session was lost")
	require.NoError(t, await(t, res, 20*time.Second, "waiter").err)

	require.False(t, holder.IsHeld(), "IsHeld on a lost holding")

	link.Restore()
	require.ErrorIs(t, holder.Unlock(ctx), zkrecipes.ErrLost, "Unlock of a lost holding")
	require.NoError(t, waiter.Unlock(ctx))
}

// TestMutexWaiterSessionExpires cuts a waiter's link until its session is
// lost. Nothing was held, so its Lock does not fail: its old node goes with
// the session, the waiter queued behind it gets the lock when the holder
// releases, and once the link is back the doomed waiter queues again, at
// the back, with a node of its new session, and gets the lock in its turn
// without being asked twice.
func TestMutexWaiterSessionExpires(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	holder := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)
	link := newLink(t)
	dc := connect(t, clientOpts{ns: ns, link: link, timeout: mxShortSession})
	doomed := mxNew(t, dc, mxLockPath)
	behind := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	require.NoError(t, holder.Lock(ctx))
	rd := mxLockAsync(ctx, doomed)
	ps := mxWaitQueued(t, holder, 2)
	doomedNode := ps[1].Name
	rb := mxLockAsync(ctx, behind)
	ps = mxWaitQueued(t, holder, 3)
	behindNode := ps[2].Name
	time.Sleep(50 * time.Millisecond) // let both settle into waiting
	oldSession := dc.Session()

	link.Cut()
	require.Eventually(t, func() bool {
		return errors.Is(oldSession.Err(), zkrecipes.ErrSessionLost)
	}, 20*time.Second, pollEvery, "the doomed waiter's client gives its session up")
	eventually(t, 10*time.Second, "the expired waiter's node goes", func() bool {
		for _, k := range children(t, obs, mxLockPath) {
			if k == doomedNode {
				return false
			}
		}
		return true
	})
	pending(t, rd, 0, "the waiter whose session was lost")
	require.Equal(t, []string{mxBase(holder.Node()), behindNode}, mxNames(mxWaitQueued(t, holder, 2)))

	link.Restore()
	ps = mxWaitQueued(t, holder, 3)
	require.Equal(t, []string{mxBase(holder.Node()), behindNode}, mxNames(ps[:2]))
	requeued := ps[2]
	require.NotEqual(t, doomedNode, requeued.Name, "the doomed waiter queues again with a new node")
	_, st, err := obs.Exists(ctx, requeued.Path)
	require.NoError(t, err)
	require.Equal(t, dc.Session().ID(), st.EphemeralOwner, "the new node belongs to the new session")
	require.NotEqual(t, oldSession.ID(), st.EphemeralOwner)

	time.Sleep(200 * time.Millisecond)
	pending(t, rb, 0, "the waiter behind (while the holder holds)")
	require.False(t, closed(holder.Lost()), "the holder was disturbed")
	require.NoError(t, holder.Unlock(ctx))
	require.NoError(t, await(t, rb, 10*time.Second, "the waiter behind").err)
	require.Equal(t, mxLockPath+"/"+behindNode, behind.Node())
	pending(t, rd, 0, "the requeued waiter (while the waiter behind holds)")
	require.NoError(t, behind.Unlock(ctx))
	require.NoError(t, await(t, rd, 10*time.Second, "the requeued waiter").err)
	require.Equal(t, requeued.Path, doomed.Node())
	require.NoError(t, doomed.Unlock(ctx))
}
