package nodeit

import (
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// TestNodeTTL ports Curator's TestPersistentTtlNode (the harness's servers
// allow TTL nodes and reap every 500 ms): the handle's touch child keeps a
// TTL node for many TTLs without a write to the node itself (no data
// event), and brings it back when the child is deleted again and again; a
// handle cut off from the server lets its node expire, and makes it again
// once the link is back; Close deletes node and child. The client's TTL
// creates are checked on the server too. Parallel subtests; no goroutine
// may leak.
func TestNodeTTL(t *testing.T) {
	itest.NoLeaks(t)
	const ttl = 500 * time.Millisecond

	t.Run("KeptAliveByTouch", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/leases")
		n := r.start("/leases/job", "host-3", node.WithTTL(ttl))
		_, st0, watch, err := r.obs.GetW(r.ctx(10*time.Second), "/leases/job")
		require.NoError(t, err)
		time.Sleep(5 * ttl)
		data, st := r.read("/leases/job")
		require.NotNil(t, st, "the TTL node expired while its handle ran")
		assert.Equal(t, "host-3", string(data))
		assert.Equal(t, st0.Czxid, st.Czxid, "the TTL node was made again")
		assert.Zero(t, st.Version, "the node's data was written")
		assert.Equal(t, int64(0), st.EphemeralOwner)
		assert.Equal(t, []string{node.TouchName}, r.kids("/leases/job"))
		itest.Pending(t, watch, 0, "a data event on the TTL node")
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		assert.Empty(t, r.kids("/leases"))
	})

	t.Run("ForcedDeleteOfTouchNode", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/leases")
		n := r.start("/leases/job", "x", node.WithTTL(ttl))
		for range 5 {
			time.Sleep(ttl)
			require.NoError(t, r.obs.DeleteIfExists(r.ctx(10*time.Second), "/leases/job/"+node.TouchName))
		}
		r.requireSettled("/leases", n, false)
	})

	t.Run("ExpiresWhenCutOffThenComesBack", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 20*time.Second) // the session outlives the cut: only the TTL ends the node
		r.dir("/leases")
		n := r.newNode("/leases/job", "x", node.WithTTL(ttl))
		events, cancel := n.Events()
		defer cancel()
		require.NoError(t, n.Start(r.ctx(30*time.Second)))
		expectEvent(t, events, node.Created, 10*time.Second)
		sess := r.c.Session()
		r.link.Cut()
		itest.Eventually(t, 20*time.Second, "the cut-off handle's TTL node expires", func() bool {
			return len(r.kids("/leases")) == 0
		})
		r.link.Restore()
		expectEvent(t, events, node.Gone, 20*time.Second)
		expectEvent(t, events, node.Created, 20*time.Second)
		r.requireSettled("/leases", n, false)
		assert.Same(t, sess, r.c.Session(), "the session ended: the test proves nothing about TTLs")
	})

	t.Run("ProtectedSequential", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/leases")
		n := r.start("/leases/job-", "x", node.WithTTL(ttl), node.WithMode(node.PersistentSequential), node.WithProtection())
		name := strings.TrimPrefix(n.Path(), "/leases/")
		assert.True(t, strings.HasPrefix(name, client.ProtectedPrefix), name)
		time.Sleep(3 * ttl)
		r.requireSettled("/leases", n, false)
		assert.Equal(t, []string{node.TouchName}, r.kids(n.Path()))
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
	})

	t.Run("ClientCreates", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		ctx := r.ctx(30 * time.Second)
		_, err := r.c.Create(ctx, "/missing/n", nil, zk.FlagTTL, client.WithTTL(ttl))
		require.ErrorIs(t, err, zk.ErrNoNode, "Create WithTTL makes no parents")
		p, err := r.c.Create(ctx, "/a/b/n-", []byte("d"), zk.FlagPersistentSequentialWithTTL, client.WithTTL(ttl), client.WithParents())
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(p, "/a/b/n-"), p)
		pn, err := r.c.CreateProtected(ctx, "/a/b/lease", []byte("d"), zk.FlagTTL, client.WithTTL(ttl))
		require.NoError(t, err)
		assert.Contains(t, pn.Path, "/a/b/"+client.ProtectedPrefix)
		top, err := r.c.Create(ctx, "/top", nil, zk.FlagTTL, client.WithTTL(ttl))
		require.NoError(t, err, "the namespace root is made on demand")
		assert.Equal(t, "/top", top)
		// No children, no writes: they expire, and their parents (the
		// containers Create WithTTL and WithParents made) are reaped.
		itest.Eventually(t, 20*time.Second, "the TTL nodes expire", func() bool {
			return len(r.kids("/")) == 0
		})
	})
}
