package nodeit

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// TestNodeBadInput: what the server would refuse, or what cannot work, is
// a typed error and leaves nothing on the server: New's refusals (on a
// live client: no request sent), a node under an ephemeral parent, a
// create or a write without permission (Curator's testNoCreatePermission
// and testNoWritePermission), and calls after Close. Parallel subtests; no
// goroutine may leak.
func TestNodeBadInput(t *testing.T) {
	itest.NoLeaks(t)

	t.Run("RefusedByNew", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		sent := creates(r.link)
		for _, p := range []string{"", "svc", "/svc/", "/a//b", "/zookeeper/n", "/"} {
			_, err := node.New(r.c, p, nil)
			var pe *client.PathError
			assert.True(t, errors.As(err, &pe), "path %q: %v", p, err)
		}
		for name, opts := range map[string][]node.Option{
			"zero TTL":          {node.WithTTL(0)},
			"negative TTL":      {node.WithTTL(-time.Minute)},
			"ephemeral TTL":     {node.WithMode(node.Ephemeral), node.WithTTL(time.Minute)},
			"unprotected seq":   {node.WithMode(node.EphemeralSequential)},
			"unknown mode":      {node.WithMode(node.Mode(42))},
			"nil option":        {nil},
			"TTL over the max.": {node.WithTTL(client.MaxTTL + time.Second)},
		} {
			_, err := node.New(r.c, "/svc/n", []byte("x"), opts...)
			assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, name)
		}
		_, err := node.New(nil, "/svc/n", nil)
		assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
		assert.Equal(t, sent, creates(r.link), "a refused New sent a create")
		assert.Empty(t, r.kids("/"), "a refused New left something")
	})

	t.Run("EphemeralParent", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		_, err := r.obs.Create(r.ctx(10*time.Second), "/eph", nil, zk.FlagEphemeral, client.WithParents())
		require.NoError(t, err)
		n := r.newNode("/eph/n", "x")
		err = n.Start(r.ctx(30 * time.Second)) // the server's refusal: the handle keeps trying
		require.ErrorIs(t, err, zk.ErrNoChildrenForEphemerals)
		assertSays(t, n.Start(r.ctx(time.Second)), zkrecipes.ErrAlreadyStarted, "zkrecipes: node is already started")
		assert.Empty(t, n.Path())
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		assert.Empty(t, r.kids("/eph"))
	})

	t.Run("NoCreatePermission", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/open") // the namespace root, open to all, before the owner's node
		acl := append(zk.DigestACL(zk.PermAll, "me1", "pass1"), zk.WorldACL(zk.PermRead)...)
		owner := itest.Connect(t, r.cl, itest.Opts{NS: r.c.Namespace(),
			Extra: []client.Option{client.WithDigestAuth("me1", "pass1"), client.WithACL(acl...)}})
		_, err := owner.Create(r.ctx(10*time.Second), "/locked", nil, zk.FlagPersistent)
		require.NoError(t, err)
		t.Cleanup(func() { _ = owner.DeleteIfExists(r.ctx(10*time.Second), "/locked") })

		n := r.newNode("/locked/n", "x", node.WithProtection())
		require.ErrorIs(t, n.Start(r.ctx(30*time.Second)), zk.ErrNoAuth)
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		assert.Empty(t, r.kids("/locked"))
	})

	t.Run("NoWritePermission", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		// The handle's client creates nodes it may read, create under and
		// delete, but not write.
		c := itest.Connect(t, r.cl, itest.Opts{NS: r.c.Namespace(),
			Extra: []client.Option{client.WithACL(zk.WorldACL(zk.PermRead | zk.PermCreate | zk.PermDelete)...)}})
		n, err := node.New(c, "/svc/w1", []byte("first"))
		require.NoError(t, err)
		require.NoError(t, n.Start(r.ctx(30*time.Second)))
		err = n.SetData(r.ctx(30*time.Second), []byte("NEW_DATA"))
		require.ErrorIs(t, err, zk.ErrNoAuth)
		data, _ := r.read("/svc/w1")
		assert.Equal(t, "first", string(data))
		assert.Equal(t, "NEW_DATA", string(n.Data()), "the data given is remembered all the same")
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		assert.Empty(t, r.kids("/svc"))
	})
}
