package integration

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestClientEnsembleFailover runs a three-server ensemble. Stopping the
// server the client is connected to moves the client to another member on
// the same session (Suspended, Reconnected, never Lost), and so does a restart
// of the whole ensemble within the session timeout; the client's ephemeral
// node survives both.
func TestClientEnsembleFailover(t *testing.T) {
	noLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	ns := namespace(t)
	// Long enough for a whole-ensemble restart; it costs nothing when all goes well.
	const timeout = 30 * time.Second
	forever, err := retry.Forever(100 * time.Millisecond) // ctx bounds it
	require.NoError(t, err)
	c := connect(t, clientOpts{cluster: cl, ns: ns, timeout: timeout,
		extra: []client.Option{client.WithRetryPolicy(forever)}})
	ctx := ctxT(t, 3*time.Minute)

	_, err = c.Create(ctx, "/eph", []byte("x"), zk.FlagEphemeral, client.WithParents())
	require.NoError(t, err)
	sess := c.Session()
	sid := sess.ID()
	events, cancel := c.Subscribe()
	defer cancel()

	// 1. Stop the member the client is connected to.
	conn, err := c.Conn(ctx)
	require.NoError(t, err)
	addr := conn.Server()
	victim := slices.Index(cl.Addrs(), addr)
	require.GreaterOrEqual(t, victim, 0, "connected to %q, not one of %v", addr, cl.Addrs())
	t.Logf("client is on server %d (%s); stopping it", victim, addr)
	require.NoError(t, cl.StopServer(ctx, victim))

	clSettle(t, ctx, c, events, sid)
	conn, err = c.Conn(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, addr, conn.Server(), "the client is still on the stopped server")
	assert.Contains(t, cl.Addrs(), conn.Server())
	assert.Same(t, sess, c.Session())
	ok, owner := clOwner(t, cl, ns+"/eph")
	assert.True(t, ok, "the ephemeral node survived the failover")
	assert.Equal(t, sid, owner)

	// 2. Restart the whole ensemble: stop the other members too (the victim
	// is still down), then start all three together (a member waits for a
	// quorum to serve).
	restart := time.Now()
	for i := range cl.Size() {
		require.NoError(t, cl.StopServer(ctx, i)) // a no-op on the victim
	}
	t.Logf("ensemble stopped in %v", time.Since(restart).Round(time.Millisecond))
	var wg sync.WaitGroup
	errs := make([]error, cl.Size())
	for i := range cl.Size() {
		wg.Go(func() { errs[i] = cl.StartServer(ctx, i) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "start server %d", i)
	}
	t.Logf("ensemble restarted in %v", time.Since(restart).Round(time.Millisecond))

	clSettle(t, ctx, c, events, sid)
	assert.Same(t, sess, c.Session())
	assert.NoError(t, sess.Err())
	ok, owner = clOwner(t, cl, ns+"/eph")
	assert.True(t, ok, "the ephemeral node survived the ensemble restart")
	assert.Equal(t, sid, owner)
}

// clSettle waits until c serves requests again after a fault, then requires
// that everything it published meanwhile is Suspended/Reconnected pairs of
// session sid (the connection may flap while the ensemble elects a leader),
// never Lost, and that it ends Reconnected.
func clSettle(t *testing.T, ctx context.Context, c *client.Client, events <-chan client.StateChange, sid int64) {
	t.Helper()
	first := clNext(t, events, 30*time.Second)
	require.Equal(t, client.StateSuspended, first.State, "first transition: %s", clDescribe(first))
	// A request that succeeds proves a connection with a session: the
	// session event that precedes it has been published.
	data, _, err := c.Get(ctx, "/eph")
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))
	evs := append([]client.StateChange{first}, clDrain(events, 500*time.Millisecond)...)
	// The connection may drop once more while the ensemble settles: wait
	// for it to come back before judging.
	for evs[len(evs)-1].State == client.StateSuspended {
		evs = append(evs, clNext(t, events, 30*time.Second))
		evs = append(evs, clDrain(events, 500*time.Millisecond)...)
	}
	t.Logf("transitions: %s", clDescribeAll(evs))
	clRequireFlaps(t, evs, sid)
	assert.Equal(t, client.StateReconnected, c.State())
}
