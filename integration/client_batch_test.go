package integration

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestConnBatch: a batch's requests go out in one go and are answered in
// order: a read after a create sees the node, a transaction after it sees
// both, a failed request fails alone; a bad op sends nothing; a batch is
// sent once.
func TestConnBatch(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	_, err := c.Create(ctx, "/b/x", nil, 0, client.WithParents())
	require.NoError(t, err)
	conn, err := c.Conn(ctx)
	require.NoError(t, err)
	b := conn.Batch()
	made := b.Create(ns+"/b/seq-", []byte("one"), zk.FlagSequence)
	read := b.Get(ns + "/b/seq-0000000001")
	missing := b.Get(ns + "/b/none")
	tx := b.Multi(&zk.CheckVersionRequest{Path: ns + "/b/seq-0000000001", Version: 0}, &zk.DeleteRequest{Path: ns + "/b/x", Version: -1})
	gone := b.Delete(ns+"/b/x", -1)
	require.ErrorIs(t, made.Err(), zkrecipes.ErrInvalidArgument, "a reply read before Send")
	require.NoError(t, b.Send(ctx))
	p, st, err := made.Created()
	require.NoError(t, err)
	require.Equal(t, ns+"/b/seq-0000000001", p)
	data, rst, err := read.Data()
	require.NoError(t, err)
	require.Equal(t, "one", string(data), "the read after the create sees it")
	require.Equal(t, st.Czxid, rst.Czxid)
	require.ErrorIs(t, missing.Err(), zk.ErrNoNode)
	res, err := tx.Results()
	require.NoError(t, err)
	require.Len(t, res, 2)
	require.ErrorIs(t, gone.Err(), zk.ErrNoNode, "the transaction before it deleted the node")
	require.ErrorIs(t, b.Send(ctx), zkrecipes.ErrInvalidArgument, "a second Send")

	bad := conn.Batch()
	r := bad.Create(ns+"/b/never", nil, 0)
	bad.Multi("not an op")
	require.ErrorIs(t, bad.Send(ctx), zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, r.Err(), zkrecipes.ErrInvalidArgument)
	ok, _, err := c.Exists(ctx, "/b/never")
	require.NoError(t, err)
	require.False(t, ok, "nothing of a bad batch was sent")
}
