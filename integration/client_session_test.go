package integration

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestClientShortCutKeepsSession: a connection cut for less than the session
// timeout gives Suspended then Reconnected on the same session, whose
// ephemeral node survives.
func TestClientShortCutKeepsSession(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	link := newLink(t)
	const timeout = 6 * time.Second
	c := connect(t, clientOpts{ns: ns, link: link, timeout: timeout})
	ctx := ctxT(t, 30*time.Second)

	_, err := c.Create(ctx, "/eph", []byte("x"), zk.FlagEphemeral, client.WithParents())
	require.NoError(t, err)
	sess := c.Session()
	events, cancel := c.Subscribe()
	defer cancel()

	link.Cut()
	susp := clExpect(t, events, client.StateSuspended, sess.ID(), 5*time.Second)
	assert.Equal(t, client.StateSuspended, c.State())
	assert.True(t, closed(c.Disconnected()), "Disconnected() is open while Suspended")
	time.Sleep(500 * time.Millisecond)
	link.Restore()
	rec := clExpect(t, events, client.StateReconnected, sess.ID(), timeout)
	assert.False(t, rec.Time.Before(susp.Time), "events are in order")

	assert.Same(t, sess, c.Session(), "the same epoch goes on")
	assert.Equal(t, sess.ID(), c.Session().ID())
	assert.NoError(t, sess.Err())
	require.False(t, closed(sess.Done()), "the session ended although it was never lost")
	assert.GreaterOrEqual(t, link.Dials(), int64(2), "the client dialed again")

	ok, owner := clOwner(t, nil, ns+"/eph")
	assert.True(t, ok, "the ephemeral node survived the cut")
	assert.Equal(t, sess.ID(), owner)
	// The session serves requests again.
	data, _, err := c.Get(ctx, "/eph")
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
	rest := clDrain(events, 300*time.Millisecond)
	assert.Empty(t, rest, "nothing after Reconnected: %s", clDescribeAll(rest))
}

// TestClientLongCutLosesSession: a cut longer than the session timeout gives
// Suspended, then Lost about one session timeout later (the client gives the
// session up by itself, since no server can tell it); the old session ends
// with ErrSessionLost, and once the link is back the client is Reconnected on
// a new session while the server has removed the old ephemeral node.
func TestClientLongCutLosesSession(t *testing.T) {
	noLeaks(t)
	clLostSession(t, (*faultlink.Link).Cut)
}

// TestClientBlackholeLosesSession is the same with a silent partition: no
// connection error at all, only silence, so the client must notice by its
// own timeouts.
func TestClientBlackholeLosesSession(t *testing.T) {
	noLeaks(t)
	clLostSession(t, (*faultlink.Link).Blackhole)
}

func clLostSession(t *testing.T, fault func(*faultlink.Link)) {
	ns := namespace(t)
	link := newLink(t)
	const timeout = 1500 * time.Millisecond
	c := connect(t, clientOpts{ns: ns, link: link, timeout: timeout})
	ctx := ctxT(t, 60*time.Second)

	_, err := c.Create(ctx, "/eph", nil, zk.FlagEphemeral, client.WithParents())
	require.NoError(t, err)
	old := c.Session()
	ok, owner := clOwner(t, nil, ns+"/eph")
	require.True(t, ok)
	require.Equal(t, old.ID(), owner)
	events, cancel := c.Subscribe()
	defer cancel()

	fault(link)
	susp := clExpect(t, events, client.StateSuspended, old.ID(), 10*time.Second)
	lost := clExpect(t, events, client.StateLost, old.ID(), 10*timeout)
	elapsed := lost.Time.Sub(susp.Time)
	assert.GreaterOrEqual(t, elapsed, timeout*9/10, "Lost came before a whole session timeout of Suspended")
	assert.Less(t, elapsed, 3*timeout, "Lost came far too late")

	require.True(t, closed(old.Done()), "the lost session's Done channel is open")
	assert.ErrorIs(t, old.Err(), zkrecipes.ErrSessionLost)
	assert.Equal(t, client.StateLost, c.State())

	// While the link is down nothing can have a session.
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.WaitSession(short)
	stop()
	assert.ErrorIs(t, err, context.DeadlineExceeded, "WaitSession returned a session while partitioned")

	link.Restore()
	rec := clNext(t, events, 15*time.Second)
	require.Equal(t, client.StateReconnected, rec.State, "after Lost: %s", clDescribe(rec))
	assert.NotEqual(t, old.ID(), rec.SessionID, "a new session after Lost")
	cur := c.Session()
	require.NotNil(t, cur)
	assert.NotSame(t, old, cur)
	assert.Equal(t, rec.SessionID, cur.ID())
	assert.NoError(t, cur.Err())
	ws, err := c.WaitSession(ctx)
	require.NoError(t, err)
	assert.Same(t, cur, ws)

	// The server expires the old session on its own clock.
	eventually(t, 10*time.Second, "the old session's ephemeral node is removed", func() bool {
		ok, _ := clOwner(t, nil, ns+"/eph")
		return !ok
	})
	// The new session works, and owns what it creates.
	_, err = c.Create(ctx, "/eph", nil, zk.FlagEphemeral, client.WithParents())
	require.NoError(t, err)
	_, st, err := c.Get(ctx, "/eph")
	require.NoError(t, err)
	assert.Equal(t, cur.ID(), st.EphemeralOwner)
	rest := clDrain(events, 300*time.Millisecond)
	assert.Empty(t, rest, "nothing after Reconnected: %s", clDescribeAll(rest))
}

// TestClientSubscriberOrderUnderLoad: five quick cut/restore cycles publish
// Suspended, Reconnected five times over, all of them delivered in order to a
// subscriber that does not read until the end and then reads slowly.
func TestClientSubscriberOrderUnderLoad(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 8 * time.Second})
	sid := c.Session().ID()
	slow, cancelSlow := c.Subscribe()
	defer cancelSlow()
	// A second subscriber cancelled midway must not disturb the first.
	other, cancelOther := c.Subscribe()

	const cycles = 5
	for i := range cycles {
		link.Cut()
		clWaitState(t, c, client.StateSuspended, 5*time.Second)
		link.Restore()
		clWaitState(t, c, client.StateReconnected, 8*time.Second)
		if i == 1 {
			cancelOther()
		}
	}

	var got []client.StateChange
	for range 2 * cycles {
		time.Sleep(20 * time.Millisecond) // a slow reader
		got = append(got, clNext(t, slow, 5*time.Second))
	}
	require.Len(t, got, 2*cycles)
	clRequireFlaps(t, got, sid)
	for i := 1; i < len(got); i++ {
		assert.False(t, got[i].Time.Before(got[i-1].Time), "event %d is older than event %d", i, i-1)
	}
	rest := clDrain(slow, 300*time.Millisecond)
	assert.Empty(t, rest, "more events than transitions: %s", clDescribeAll(rest))
	assert.Equal(t, sid, c.Session().ID())

	// The cancelled subscriber's channel was closed after what it had queued.
	n := 0
	for range other {
		n++
	}
	assert.LessOrEqual(t, n, 2*cycles)
}

// clWaitState polls the client's published state.
func clWaitState(t *testing.T, c *client.Client, want client.State, d time.Duration) {
	t.Helper()
	require.EventuallyWithT(t, func(ct *assert.CollectT) {
		assert.Equal(ct, want, c.State())
	}, d, pollEvery, "state %s", want)
}
