package integration

import (
	"context"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// clCreates counts the create requests a link carried.
func clCreates(l *faultlink.Link) int64 {
	return l.Requests(faultlink.OpCreate) + l.Requests(faultlink.OpCreate2)
}

// clRequireSoleChild requires that the absolute dir has exactly one child,
// named like p's last segment, and returns its stat.
func clRequireSoleChild(t *testing.T, dir, p string) *zk.Stat {
	t.Helper()
	var st *zk.Stat
	clInspect(t, nil, func(ctx context.Context, obs *client.Client) {
		kids, _, err := obs.Children(ctx, dir)
		require.NoError(t, err)
		require.Equal(t, []string{path.Base(p)}, kids, "children of %s", dir)
		_, st, err = obs.Get(ctx, dir+"/"+kids[0])
		require.NoError(t, err)
	})
	return st
}

// TestClientProtectedCreateLostReply: the server creates the node but the
// reply never reaches the client, whose connection then breaks. The retry
// finds the node by its UUID instead of creating a second one.
func TestClientProtectedCreateLostReply(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	ctx := ctxT(t, 30*time.Second)
	_, err := c.Create(ctx, "/p", nil, 0, client.WithParents())
	require.NoError(t, err)
	sess := c.Session()

	before := clCreates(link)
	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	node, err := c.CreateProtected(ctx, "/p/lock-", []byte("data"), zk.FlagEphemeralSequential)
	require.NoError(t, err)
	require.True(t, closed(fired), "the fault never fired: the create's reply was not dropped")
	assert.Equal(t, before+1, clCreates(link), "the create was sent once, not repeated")
	assert.GreaterOrEqual(t, link.Dials(), int64(2), "the connection was replaced")

	name := path.Base(node.Path)
	assert.Equal(t, "/p/"+name, node.Path)
	assert.True(t, strings.HasPrefix(name, client.ProtectedPrefix), name)
	assert.Contains(t, name, "-lock-")
	assert.Same(t, sess, node.Session)
	st := clRequireSoleChild(t, ns+"/p", node.Path)
	assert.Equal(t, sess.ID(), st.EphemeralOwner)
	data, _, err := c.Get(ctx, node.Path)
	require.NoError(t, err)
	assert.Equal(t, "data", string(data))
}

// TestClientProtectedCreateAcrossLostSession: the reply to the create is
// lost and so is the session before the client can look for its node. The
// create goes on in the new session, and exactly one node is left, owned by
// the new session, whatever the server had done with the old one.
func TestClientProtectedCreateAcrossLostSession(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	link := newLink(t)
	forever, err := retry.Forever(50 * time.Millisecond) // ctx bounds it
	require.NoError(t, err)
	const timeout = 1500 * time.Millisecond
	c := connect(t, clientOpts{ns: ns, link: link, timeout: timeout,
		extra: []client.Option{client.WithRetryPolicy(forever)}})
	ctx := ctxT(t, 60*time.Second)
	_, err = c.Create(ctx, "/p", nil, 0, client.WithParents())
	require.NoError(t, err)
	old := c.Session()
	events, cancel := c.Subscribe()
	defer cancel()

	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	type result struct {
		node client.ProtectedNode
		err  error
	}
	done := make(chan result, 1)
	go func() {
		n, err := c.CreateProtected(ctx, "/p/lock-", []byte("data"), zk.FlagEphemeralSequential)
		done <- result{n, err}
	}()
	require.True(t, waitClosed(fired, 10*time.Second), "the create was never sent")
	link.Cut()
	clExpect(t, events, client.StateSuspended, old.ID(), 5*time.Second)
	clExpect(t, events, client.StateLost, old.ID(), 10*timeout)
	link.Restore()
	rec := clNext(t, events, 15*time.Second)
	require.Equal(t, client.StateReconnected, rec.State, clDescribe(rec))

	var res result
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("CreateProtected did not finish after the reconnect")
	}
	require.NoError(t, res.err)
	cur := c.Session()
	assert.NotEqual(t, old.ID(), cur.ID())
	assert.Same(t, cur, res.node.Session, "the node belongs to the new session")
	st := clRequireSoleChild(t, ns+"/p", res.node.Path)
	assert.Equal(t, cur.ID(), st.EphemeralOwner)
}
