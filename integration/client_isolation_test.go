package integration

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestClientNamespaceIsolation: two clients in different namespaces use the
// same relative paths without seeing each other; a client without a
// namespace sees both trees under their absolute paths.
func TestClientNamespaceIsolation(t *testing.T) {
	t.Parallel()
	base := namespace(t)
	nsA, nsB := base+"/A", base+"/B"
	a := connect(t, clientOpts{ns: nsA})
	b := connect(t, clientOpts{ns: nsB})
	root := connect(t, clientOpts{}) // no namespace
	ctx := ctxT(t, 30*time.Second)
	assert.Equal(t, nsA, a.Namespace())
	assert.Empty(t, root.Namespace())

	for _, tc := range []struct {
		c    *client.Client
		data string
		kid  string
	}{{a, "from A", "onlyA"}, {b, "from B", "onlyB"}} {
		p, err := tc.c.Create(ctx, "/same", []byte(tc.data), 0, client.WithParents())
		require.NoError(t, err)
		assert.Equal(t, "/same", p)
		p, err = tc.c.Create(ctx, "/dir/"+tc.kid, nil, 0, client.WithParents())
		require.NoError(t, err)
		assert.Equal(t, "/dir/"+tc.kid, p)
		node, err := tc.c.CreateProtected(ctx, "/dir/lock-", nil, zk.FlagEphemeralSequential)
		require.NoError(t, err)
		assert.Regexp(t, `^/dir/_c_[0-9a-f-]{36}-lock-\d{10}$`, node.Path, "relative to the namespace")
	}

	for _, tc := range []struct {
		c              *client.Client
		data, kid, not string
	}{{a, "from A", "onlyA", "onlyB"}, {b, "from B", "onlyB", "onlyA"}} {
		data, _, err := tc.c.Get(ctx, "/same")
		require.NoError(t, err)
		assert.Equal(t, tc.data, string(data))
		kids, _, err := tc.c.Children(ctx, "/dir")
		require.NoError(t, err)
		assert.Len(t, kids, 2)
		assert.Contains(t, kids, tc.kid)
		assert.NotContains(t, kids, tc.not)
		top, _, err := tc.c.Children(ctx, "/")
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"same", "dir"}, top, "the namespace root holds only this client's nodes")
	}

	// Deleting in one namespace leaves the other alone.
	require.NoError(t, a.Delete(ctx, "/same", -1))
	_, _, err := a.Get(ctx, "/same")
	assert.ErrorIs(t, err, zk.ErrNoNode)
	data, _, err := b.Get(ctx, "/same")
	require.NoError(t, err)
	assert.Equal(t, "from B", string(data))

	// Without a namespace, both trees are where the namespaces put them.
	data, _, err = root.Get(ctx, nsB+"/same")
	require.NoError(t, err)
	assert.Equal(t, "from B", string(data))
	ok, _, err := root.Exists(ctx, nsA+"/same")
	require.NoError(t, err)
	assert.False(t, ok)
	for ns, kid := range map[string]string{nsA: "onlyA", nsB: "onlyB"} {
		kids, _, err := root.Children(ctx, ns+"/dir")
		require.NoError(t, err)
		assert.Contains(t, kids, kid)
		assert.Len(t, kids, 2)
	}
	kids, _, err := root.Children(ctx, base)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"A", "B"}, kids)
}

// TestClientDigestACL: a node created by a client with digest credentials is
// readable and deletable only by a client with the same credentials.
func TestClientDigestACL(t *testing.T) {
	t.Parallel()
	ns := namespace(t)
	// Make the namespace with an open ACL first: otherwise alice would create
	// it (and maybe the shared /it above it, if the server had reaped it)
	// readable only by her.
	setup := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	_, err := setup.Create(ctx, "/anchor", nil, 0, client.WithParents())
	require.NoError(t, err)
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = setup.DeleteIfExists(cctx, "/anchor")
	})

	alice := client.WithDigestAuth("alice", "secret")
	a := connect(t, clientOpts{ns: ns, extra: []client.Option{alice}})
	anon := connect(t, clientOpts{ns: ns})
	mallory := connect(t, clientOpts{ns: ns, extra: []client.Option{client.WithDigestAuth("alice", "wrong")}})
	c := connect(t, clientOpts{ns: ns, extra: []client.Option{alice}})

	_, err = a.Create(ctx, "/secret/node", []byte("classified"), 0, client.WithParents())
	require.NoError(t, err)
	conn, err := a.Conn(ctx)
	require.NoError(t, err)
	acls, _, err := conn.GetACL(ctx, ns+"/secret/node")
	require.NoError(t, err)
	require.Len(t, acls, 1)
	assert.Equal(t, "digest", acls[0].Scheme)
	assert.Regexp(t, `^alice:`, acls[0].ID)
	assert.Equal(t, int32(zk.PermAll), acls[0].Perms)

	for name, other := range map[string]*client.Client{"no credentials": anon, "wrong password": mallory} {
		_, _, err = other.Get(ctx, "/secret/node")
		assert.ErrorIs(t, err, zk.ErrNoAuth, "%s: read", name)
		assert.ErrorIs(t, other.Delete(ctx, "/secret/node", -1), zk.ErrNoAuth, "%s: delete", name)
		_, err = other.Set(ctx, "/secret/node", []byte("x"), -1)
		assert.ErrorIs(t, err, zk.ErrNoAuth, "%s: write", name)
		_, err = other.Create(ctx, "/secret/intruder", nil, 0)
		assert.ErrorIs(t, err, zk.ErrNoAuth, "%s: create in alice's parent", name)
	}

	data, _, err := c.Get(ctx, "/secret/node")
	require.NoError(t, err)
	assert.Equal(t, "classified", string(data))
	require.NoError(t, c.Delete(ctx, "/secret/node", -1))
	ok, _, err := a.Exists(ctx, "/secret/node")
	require.NoError(t, err)
	assert.False(t, ok)
}
