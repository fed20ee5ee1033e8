package integration

import (
	"path"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestClientReplaceProtected: the old node's delete and the new node's
// create go out as one transaction (one multi request, no create, no
// delete), and only the new node is left.
func TestClientReplaceProtected(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	ctx := ctxT(t, 30*time.Second)
	old, err := c.CreateProtected(ctx, "/p/lock-", nil, zk.FlagEphemeralSequential)
	require.NoError(t, err)

	creates, deletes, multis := clCreates(link), link.Requests(faultlink.OpDelete), link.Requests(faultlink.OpMulti)
	node, err := c.ReplaceProtected(ctx, old, "/p/lock-", []byte("new"), zk.FlagEphemeralSequential)
	require.NoError(t, err)
	assert.Equal(t, multis+1, link.Requests(faultlink.OpMulti), "one transaction")
	assert.Equal(t, creates, clCreates(link), "no create of its own")
	assert.Equal(t, deletes, link.Requests(faultlink.OpDelete), "no delete of its own")
	assert.Same(t, old.Session, node.Session)
	name, oldName := path.Base(node.Path), path.Base(old.Path)
	assert.True(t, strings.HasPrefix(name, client.ProtectedPrefix) && strings.Contains(name, "-lock-"), name)
	assert.Greater(t, name[len(name)-10:], oldName[len(oldName)-10:], "a later sequence number")
	st := clRequireSoleChild(t, ns+"/p", node.Path)
	assert.Equal(t, node.Session.ID(), st.EphemeralOwner)
	data, _, err := c.Get(ctx, node.Path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
}

// TestClientReplaceProtectedLostReply: the server commits the transaction
// but its reply never reaches the client, whose connection then breaks.
// The retry finds the new node by its UUID instead of making a second one,
// and the old node is gone.
func TestClientReplaceProtectedLostReply(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	ctx := ctxT(t, 30*time.Second)
	old, err := c.CreateProtected(ctx, "/p/lock-", nil, zk.FlagEphemeralSequential)
	require.NoError(t, err)

	fired := link.DropReplyTo(faultlink.OpMulti)
	node, err := c.ReplaceProtected(ctx, old, "/p/lock-", nil, zk.FlagEphemeralSequential)
	require.NoError(t, err)
	require.True(t, closed(fired), "the fault never fired: the transaction's reply was not dropped")
	assert.Equal(t, int64(1), link.Requests(faultlink.OpMulti), "the transaction was sent once")
	assert.Same(t, old.Session, node.Session)
	st := clRequireSoleChild(t, ns+"/p", node.Path)
	assert.Equal(t, node.Session.ID(), st.EphemeralOwner)
	assert.Zero(t, c.PendingDeletes())
}

// TestClientReplaceProtectedOldGone: the old node was deleted by someone
// else; the server refuses the transaction as a whole, and the new node is
// made on its own.
func TestClientReplaceProtectedOldGone(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	old, err := c.CreateProtected(ctx, "/p/lock-", nil, zk.FlagEphemeralSequential)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, old.Path, -1))

	node, err := c.ReplaceProtected(ctx, old, "/p/lock-", nil, zk.FlagEphemeralSequential)
	require.NoError(t, err)
	clRequireSoleChild(t, ns+"/p", node.Path)
	assert.Zero(t, c.PendingDeletes())
}
