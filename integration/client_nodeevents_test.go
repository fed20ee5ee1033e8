package integration

import (
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

// TestClientNodeEvents: one stream carries the notifications of every watch
// set through the client under its root, relative to the namespace, in the
// server's order, and none of another subtree.
func TestClientNodeEvents(t *testing.T) {
	noLeaks(t)
	c := connect(t, clientOpts{ns: namespace(t)})
	ctx := ctxT(t, 20*time.Second)
	for _, p := range []string{"/a", "/a/x", "/b", "/b/y"} {
		_, err := c.Create(ctx, p, nil, 0)
		require.NoError(t, err)
	}
	_, _, err := c.NodeEvents("a")
	require.ErrorIs(t, err, zkrecipes.ErrInvalidPath)

	events, cancel, err := c.NodeEvents("/a")
	require.NoError(t, err)
	defer cancel()
	// Set watches and drop the channels they return: the stream is enough.
	_, _, _, err = c.GetW(ctx, "/a/x")
	require.NoError(t, err)
	_, _, _, err = c.ChildrenW(ctx, "/a")
	require.NoError(t, err)
	_, _, _, err = c.GetW(ctx, "/b/y")
	require.NoError(t, err)
	_, _, _, err = c.ExistsW(ctx, "/a/z")
	require.NoError(t, err)

	_, err = c.Set(ctx, "/b/y", []byte("other subtree"), -1)
	require.NoError(t, err)
	_, err = c.Set(ctx, "/a/x", []byte("1"), -1)
	require.NoError(t, err)
	_, err = c.Create(ctx, "/a/z", nil, 0)
	require.NoError(t, err)

	want := []zk.Event{
		{Type: zk.EventNodeDataChanged, Path: "/a/x"},
		{Type: zk.EventNodeCreated, Path: "/a/z"},
		{Type: zk.EventNodeChildrenChanged, Path: "/a"},
	}
	for i, w := range want {
		ev := await(t, events, 5*time.Second, "node event")
		require.Equal(t, w.Type, ev.Type, "event %d: %+v", i, ev)
		require.Equal(t, w.Path, ev.Path, "event %d: %+v", i, ev)
	}
	pending(t, events, 300*time.Millisecond, "a fourth event")
	cancel()
	cancel()
	_, open := <-events
	require.False(t, open, "cancel closes the stream")

	require.NoError(t, c.Close())
	_, _, err = c.NodeEvents("/a")
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
}
