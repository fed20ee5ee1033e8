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
)

// TestClientLifecycle: a subscription taken before Start sees Connected with
// the session's id first; the client creates and reads nodes; after Close
// every call fails with ErrClosed and the subscription is closed.
func TestClientLifecycle(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c, err := client.New(
		client.WithServers(shared.Addrs()...),
		client.WithSessionTimeout(4*time.Second),
		client.WithNamespace(ns),
	)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	assert.Nil(t, c.Session(), "no session before Start")
	assert.Zero(t, c.State(), "no state before Start")

	events, cancel := c.Subscribe()
	defer cancel()

	ctx := ctxT(t, 30*time.Second)
	require.NoError(t, c.Start(ctx))
	sess := c.Session()
	require.NotNil(t, sess)
	require.NotZero(t, sess.ID())
	first := clExpect(t, events, client.StateConnected, sess.ID(), 5*time.Second)
	assert.False(t, first.Time.IsZero())
	assert.Equal(t, client.StateConnected, c.State())
	assert.ErrorIs(t, c.Start(ctx), zkrecipes.ErrAlreadyStarted)
	ws, err := c.WaitSession(ctx)
	require.NoError(t, err)
	assert.Same(t, sess, ws)

	// A plain Create straight under a fresh namespace: the namespace's own
	// nodes are made on demand.
	p, err := c.Create(ctx, "/node", []byte("hello"), 0)
	require.NoError(t, err)
	assert.Equal(t, "/node", p, "paths come back relative to the namespace")
	data, nodeStat, err := c.Get(ctx, "/node")
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
	assert.Zero(t, nodeStat.EphemeralOwner)

	p, err = c.Create(ctx, "/dir/eph", []byte("e"), zk.FlagEphemeral, client.WithParents())
	require.NoError(t, err)
	assert.Equal(t, "/dir/eph", p)
	_, st, err := c.Get(ctx, "/dir/eph")
	require.NoError(t, err)
	assert.Equal(t, sess.ID(), st.EphemeralOwner)

	st, err = c.Set(ctx, "/node", []byte("again"), nodeStat.Version)
	require.NoError(t, err)
	assert.Equal(t, nodeStat.Version+1, st.Version)
	_, err = c.Set(ctx, "/node", []byte("stale"), 0)
	assert.ErrorIs(t, err, zk.ErrBadVersion)
	kids, _, err := c.Children(ctx, "/")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"node", "dir"}, kids)

	// The server sees the absolute path.
	ok, owner := clOwner(t, nil, ns+"/dir/eph")
	assert.True(t, ok)
	assert.Equal(t, sess.ID(), owner)

	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close is idempotent")

	// The subscription ends (no further transition after Close).
	rest := clDrain(events, 2*time.Second)
	assert.Empty(t, rest, "no transition after Connected: %s", clDescribeAll(rest))
	_, open := <-events
	assert.False(t, open, "Close closes every subscription")

	require.True(t, closed(sess.Done()), "the session's Done channel is open after Close")
	assert.ErrorIs(t, sess.Err(), zkrecipes.ErrClosed)

	// Every call after Close: ErrClosed, and the operation is never run.
	_, _, err = c.Get(ctx, "/node")
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Get")
	_, err = c.Create(ctx, "/other", nil, 0)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Create")
	_, err = c.Create(ctx, "/x/y", nil, 0, client.WithParents())
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Create WithParents")
	_, err = c.CreateProtected(ctx, "/p/lock-", nil, zk.FlagEphemeralSequential)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "CreateProtected")
	_, _, err = c.Children(ctx, "/")
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Children")
	assert.ErrorIs(t, c.Delete(ctx, "/node", -1), zkrecipes.ErrClosed, "Delete")
	_, err = c.Set(ctx, "/node", nil, -1)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Set")
	_, _, err = c.Exists(ctx, "/node")
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Exists")
	ran := 0
	err = c.Do(ctx, func(context.Context) error { ran++; return nil })
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Do")
	assert.Zero(t, ran, "Do ran its operation on a closed client")
	_, err = c.WaitSession(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "WaitSession")
	_, err = c.Conn(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Conn")
	assert.ErrorIs(t, c.Start(ctx), zkrecipes.ErrClosed, "Start")
	late, lateCancel := c.Subscribe()
	lateCancel()
	_, open = <-late
	assert.False(t, open, "a subscription after Close is closed")

	// Closing ended the session on the server: its ephemeral node is gone
	// (a closed session's nodes go at once, not after the timeout).
	eventually(t, 10*time.Second, "ephemeral node removed after Close", func() bool {
		ok, _ := clOwner(t, nil, ns+"/dir/eph")
		return !ok
	})
}
