package integration

import (
	"path"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientContainerParents: parents made by Create with WithParents and
// CreateProtected are containers: the server removes one once its last child
// is deleted, and keeps one that still has a child.
func TestClientContainerParents(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)

	p, err := c.Create(ctx, "/a/b/c", []byte("leaf"), 0, client.WithParents())
	require.NoError(t, err)
	assert.Equal(t, "/a/b/c", p)
	_, err = c.Create(ctx, "/a/keep", nil, 0, client.WithParents())
	require.NoError(t, err)
	node, err := c.CreateProtected(ctx, "/x/y/lock-", nil, zk.FlagEphemeralSequential)
	require.NoError(t, err)
	assert.Equal(t, "/x/y", path.Dir(node.Path))
	for _, dir := range []string{"/a", "/a/b", "/x", "/x/y"} {
		ok, _, err := c.Exists(ctx, dir)
		require.NoError(t, err)
		require.True(t, ok, "parent %s was made", dir)
	}

	require.NoError(t, c.Delete(ctx, "/a/b/c", -1))
	require.NoError(t, c.Delete(ctx, node.Path, -1))

	// The harness reaps containers every 500ms.
	for _, dir := range []string{"/a/b", "/x/y", "/x"} {
		require.EventuallyWithT(t, func(ct *assert.CollectT) {
			ok, err := tryExists(c, dir)
			require.NoError(ct, err)
			assert.False(ct, ok, "%s still exists", dir)
		}, 10*time.Second, pollEvery, dir+" is reaped")
	}
	ok, _, err := c.Exists(ctx, "/a/b")
	require.NoError(t, err)
	assert.False(t, ok, "/a/b is gone")

	// /a still has /a/keep: a few reaping rounds later it is still there.
	time.Sleep(1500 * time.Millisecond)
	ok, _, err = c.Exists(ctx, "/a")
	require.NoError(t, err)
	assert.True(t, ok, "a container with a child was reaped")
	kids, _, err := c.Children(ctx, "/a")
	require.NoError(t, err)
	assert.Equal(t, []string{"keep"}, kids)

	// A create under a reaped parent makes it again.
	_, err = c.Create(ctx, "/a/b/again", nil, 0, client.WithParents())
	require.NoError(t, err)
}
