package integration

import (
	"context"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// TestClientCtxEndsRequestInFlight: a request that will never be answered
// (the link is blackholed, and go-zookeeper drops the connection only 2/3 of
// the session timeout later) does not hold its caller past its context. With
// a 20 s session, Get, Delete, Children and CreateProtected each given 1 s
// return within clCtxPrompt with an error wrapping context.DeadlineExceeded
// (CreateProtected waits up to 2 s more for the cleanup of the node its
// abandoned create may make). Once the link is restored the same session
// carries requests again, the protected create left no node behind, and (at
// cleanup) the abandoned requests left no goroutine.
func TestClientCtxEndsRequestInFlight(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 20 * time.Second})
	sid := c.Session().ID()
	_, err := c.Create(ctx, "/n/kid", []byte("kid"), 0, client.WithParents())
	require.NoError(t, err)
	_, err = c.Create(ctx, "/p", nil, 0)
	require.NoError(t, err)

	link.Blackhole()
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Get", func(ctx context.Context) error {
			_, _, err := c.Get(ctx, "/n/kid")
			return err
		}},
		{"Delete", func(ctx context.Context) error { return c.Delete(ctx, "/n/kid", -1) }},
		{"Children", func(ctx context.Context) error {
			_, _, err := c.Children(ctx, "/n")
			return err
		}},
		{"CreateProtected", func(ctx context.Context) error {
			_, err := c.CreateProtected(ctx, "/p/x", []byte("x"), zk.FlagEphemeral)
			return err
		}},
	}
	for _, tc := range calls {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		start := time.Now()
		err := tc.call(cctx)
		took := time.Since(start)
		cancel()
		t.Logf("%s with a 1 s context during the blackhole returned after %v: %v", tc.name, took.Round(time.Millisecond), err)
		require.ErrorIs(t, err, context.DeadlineExceeded, tc.name)
		require.Less(t, took, clCtxPrompt, "%s ignored its context while its request was in flight", tc.name)
	}

	link.Restore()
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	data, _, err := c.Get(rctx, "/n/kid")
	require.NoError(t, err, "the client does not work again after the blackhole")
	require.Equal(t, []byte("kid"), data, "the abandoned Delete never reached the server")
	require.NoError(t, c.Delete(rctx, "/n/kid", -1))
	kids, _, err := c.Children(rctx, "/n")
	require.NoError(t, err)
	require.Empty(t, kids)
	require.Equal(t, sid, c.Session().ID(), "the blackhole cost the session")
	require.NoError(t, c.Session().Err())

	// The abandoned protected create never reached the server; its cleanup
	// (which runs once the create's request has ended) finds nothing.
	obs := connect(t, clientOpts{ns: ns})
	kids, _, err = obs.Children(rctx, "/p")
	require.NoError(t, err)
	require.Empty(t, kids, "the abandoned protected create left a node")
	require.Eventually(t, func() bool { return c.PendingDeletes() == 0 }, 10*time.Second, pollEvery, "PendingDeletes back to 0")

	// The client still creates, and Close ends cleanly (noLeaks).
	node, err := c.CreateProtected(rctx, "/p/x", nil, zk.FlagEphemeral)
	require.NoError(t, err)
	require.NotEmpty(t, node.Path)
	require.NoError(t, c.Close())
	require.ErrorIs(t, c.Delete(ctx, node.Path, -1), zkrecipes.ErrClosed)
}

// clCtxPrompt bounds how long after its context ends a call with a request
// in flight may take to return: generous against scheduling noise, far
// below the 2/3 of a session timeout after which go-zookeeper itself gives
// the request up.
const clCtxPrompt = 5 * time.Second
