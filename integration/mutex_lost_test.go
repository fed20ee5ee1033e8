package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// mxReentryRounds is how many times TestMutexNoReentryAfterClose races a
// reentrant Lock against a Close.
const mxReentryRounds = 40

// TestMutexNoReentryAfterClose races a goroutine that keeps reentering a
// holding (Lock with the holding's context) and asking IsHeld against the
// holder's client's Close, round after round. Close ends the session at
// once, but the holding's Lost channel is closed by its monitor goroutine a
// moment later: a reentry (or an IsHeld) that came after the session had
// ended must fail (ErrLost) however the monitor is scheduled. This is the
// interleaving that made TestMutexLostOnClose's reentrant Lock return nil.
func TestMutexNoReentryAfterClose(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	for round := 0; round < mxReentryRounds; round++ {
		c := connect(t, clientOpts{ns: ns})
		m := mxNew(t, c, mxLockPath)
		require.NoError(t, m.Lock(ctx), "round %d", round)
		node := m.Node()
		hctx, hcancel := m.Context(ctx)
		sess := c.Session()

		start := make(chan struct{})
		res := make(chan error, 1)
		reentered := 0 // levels the goroutine added; read once res has its result
		go func() {
			<-start
			for {
				ended := closed(sess.Done())
				err := m.Lock(hctx)
				switch {
				case err == nil && ended:
					res <- fmt.Errorf("reentry %d succeeded after the session ended", reentered+1)
					return
				case err != nil && !errors.Is(err, zkrecipes.ErrLost):
					res <- fmt.Errorf("reentry %d: %w, not ErrLost", reentered+1, err)
					return
				case err != nil:
					res <- nil
					return
				}
				reentered++
				// The reentry came before the session ended; IsHeld
				// must not outlive it either.
				if closed(sess.Done()) && m.IsHeld() {
					res <- fmt.Errorf("IsHeld after the session ended (after reentry %d)", reentered)
					return
				}
			}
		}()
		close(start)
		require.NoError(t, c.Close(), "round %d", round)
		require.NoError(t, await(t, res, 10*time.Second, "the reentering goroutine"), "round %d", round)
		require.True(t, closed(m.Lost()), "round %d: Lost open after a reentry failed", round)
		require.False(t, m.IsHeld(), "round %d", round)
		require.ErrorIs(t, m.Lock(hctx), zkrecipes.ErrLost, "round %d", round)
		require.ErrorIs(t, context.Cause(hctx), zkrecipes.ErrLost, "round %d", round)
		for i := 0; i < reentered; i++ {
			require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrLost, "round %d: Unlock of level %d after the loss", round, reentered+1-i)
		}
		err := m.Unlock(ctx)
		require.ErrorIs(t, err, zkrecipes.ErrLost, "round %d: the last Unlock after the loss", round)
		require.ErrorIs(t, err, zkrecipes.ErrClosed, "round %d: the last Unlock after the loss", round)
		require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld, "round %d", round)
		hcancel()
		eventually(t, 10*time.Second, "the closed session's node goes", func() bool {
			return !exists(t, obs, node)
		})
	}
}

// TestMutexUnlockAfterSessionExpiry takes the lock, expires the holder's
// session on the server (its link is cut for longer than the session
// timeout) and checks what the holder sees: Lost closes, IsHeld turns false
// at once, and Unlock, once the client has a new session, still releases
// the handle but says that the holding was lost (ErrLost), while the node is
// gone from the server.
func TestMutexUnlockAfterSessionExpiry(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	hc := connect(t, clientOpts{ns: ns, link: link, timeout: mxShortSession})
	m := mxNew(t, hc, mxLockPath)

	require.NoError(t, m.Lock(ctx))
	node, sid := m.Node(), hc.Session().ID()
	hctx, hcancel := m.Context(ctx)
	defer hcancel()
	require.True(t, m.IsHeld())

	link.Cut()
	require.True(t, waitClosed(m.Lost(), 10*time.Second), "Lost still open after the link was cut")
	require.False(t, m.IsHeld(), "IsHeld once Lost closed")
	require.ErrorIs(t, m.Lock(hctx), zkrecipes.ErrLost, "reentrant Lock on the lost holding")
	_, err := m.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost)

	// The server expires the session and deletes the node.
	eventually(t, 20*time.Second, "the expired session's node goes", func() bool {
		return !exists(t, obs, node)
	})
	link.Restore()
	require.Eventually(t, func() bool {
		s := hc.Session()
		return s != nil && s.ID() != sid && s.Err() == nil
	}, 20*time.Second, pollEvery, "the holder's client never got a new session")
	require.False(t, m.IsHeld())

	err = m.Unlock(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost, "Unlock after the loss")
	require.False(t, m.IsHeld())
	require.Empty(t, m.Node(), "the handle still has a holding after Unlock")
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld, "a second Unlock")
	ok, _, err := obs.Exists(ctx, node)
	require.NoError(t, err)
	require.False(t, ok, "the lost holding's node %s is still there", node)

	// The handle locks again, with a new node.
	require.NoError(t, m.Lock(ctx))
	require.True(t, m.IsHeld())
	require.NotEqual(t, node, m.Node())
	require.NoError(t, m.Unlock(ctx))
	require.Empty(t, children(t, obs, mxLockPath))
}

// TestMutexUnlockAfterSuspension: by default a suspension alone loses the
// holding (Lost closes) while the session, and so the node, live on. Unlock
// after the reconnect must delete the node (nobody else would until the
// session ends) and report ErrLost all the same; a reentered level's Unlock
// reports it too, and the last one deletes the node.
func TestMutexUnlockAfterSuspension(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 8 * time.Second})
	sid := c.Session().ID()
	m := mxNew(t, c, mxLockPath)

	require.NoError(t, m.Lock(ctx))
	hctx, hcancel := m.Context(ctx)
	defer hcancel()
	require.NoError(t, m.Lock(hctx), "reentry before the outage")
	node := m.Node()

	link.Cut()
	require.True(t, waitClosed(m.Lost(), 10*time.Second), "Lost still open after the link was cut")
	require.False(t, m.IsHeld(), "IsHeld once Lost closed")
	link.Restore()
	require.Eventually(t, func() bool { return c.State() == client.StateReconnected },
		10*time.Second, 10*time.Millisecond, "the client never reconnected")
	require.Equal(t, sid, c.Session().ID(), "the session did not survive the outage")
	require.True(t, exists(t, obs, node), "the node went although its session lives")
	require.False(t, m.IsHeld())

	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrLost, "Unlock of the reentered level")
	require.True(t, exists(t, obs, node), "the node went at the inner Unlock")
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrLost, "the last Unlock")
	_, _, err := obs.Get(ctx, node)
	require.ErrorIs(t, err, zk.ErrNoNode, "the lost holding's node outlived its Unlock")
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld)
	require.Equal(t, sid, c.Session().ID(), "the session changed: the node may have gone with it")
}
