package nodeit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// createOps are the opcodes of every create a node can send.
var createOps = []int32{faultlink.OpCreate, faultlink.OpCreate2, faultlink.OpCreateTTL}

// TestNodeDroppedCreateReply: the server makes the node but the reply never
// reaches the client, whose connection then breaks (faultlink's
// DropReplyTo), at the first create and again at the re-create after a
// delete. Whatever the mode, exactly one node is left, owned by the live
// session, with the data, and the handle reports one Created each time. A
// protected create is not even sent twice: the retry finds it by its UUID.
// A reply dropped just before the session is lost still leaves one node,
// of the new session. Parallel subtests; no goroutine may leak.
func TestNodeDroppedCreateReply(t *testing.T) {
	itest.NoLeaks(t)
	modes := []struct {
		name      string
		path      string
		opts      []node.Option
		ephemeral bool
	}{
		{"Ephemeral", "/svc/w1", nil, true},
		{"Protected", "/svc/w1", []node.Option{node.WithProtection()}, true},
		{"ProtectedSequential", "/svc/m-", []node.Option{node.WithMode(node.EphemeralSequential), node.WithProtection()}, true},
		{"Persistent", "/svc/p", []node.Option{node.WithMode(node.Persistent)}, false},
		{"ProtectedPersistentSequential", "/svc/p-", []node.Option{node.WithMode(node.PersistentSequential), node.WithProtection()}, false},
		{"ProtectedTTL", "/svc/t", []node.Option{node.WithTTL(time.Minute), node.WithProtection()}, false},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil, 4*time.Second)
			r.dir("/svc")
			protected := m.name != "Ephemeral" && m.name != "Persistent"
			n := r.newNode(m.path, "payload", m.opts...)
			events, cancel := n.Events()
			defer cancel()
			dials := r.link.Dials()
			before := creates(r.link)
			fired := r.link.DropReplyTo(createOps...)
			require.NoError(t, n.Start(r.ctx(30*time.Second)))
			require.True(t, itest.Closed(fired), "the fault never fired: the create's reply was not dropped")
			assert.Greater(t, r.link.Dials(), dials, "the connection was not replaced")
			if protected {
				assert.Equal(t, before+1, creates(r.link), "a protected create was sent again")
			}
			r.requireSettled("/svc", n, m.ephemeral)
			expectEvent(t, events, node.Created, 10*time.Second)

			// The re-create after a delete, its reply dropped too.
			old := n.Path()
			fired = r.link.DropReplyTo(createOps...)
			require.NoError(t, r.obs.Delete(r.ctx(10*time.Second), old, -1))
			expectEvent(t, events, node.Gone, 10*time.Second)
			expectEvent(t, events, node.Created, 30*time.Second)
			require.True(t, itest.WaitClosed(fired, 10*time.Second), "the second fault never fired")
			r.requireSettled("/svc", n, m.ephemeral)
			itest.Pending(t, events, 0, "another node event")

			require.NoError(t, n.Close(r.ctx(10*time.Second)))
			assert.Empty(t, r.kids("/svc"))
		})
	}

	t.Run("ThenSessionLost", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 1500*time.Millisecond)
		r.dir("/svc")
		n := r.newNode("/svc/m-", "payload", node.WithMode(node.EphemeralSequential), node.WithProtection())
		states, unsub := r.c.Subscribe()
		defer unsub()
		old := r.c.Session()
		fired := r.link.DropReplyTo(createOps...)
		// Start returns once the node is made: on a goroutine, so that the
		// session is lost while the create's outcome is unknown.
		started := make(chan error, 1)
		ctx := r.ctx(60 * time.Second)
		go func() { started <- n.Start(ctx) }()
		require.True(t, itest.WaitClosed(fired, 10*time.Second), "the create was never sent")
		r.link.Cut()
		itest.WaitState(t, states, client.StateLost, old.ID(), 20*time.Second)
		r.link.Restore()
		require.NoError(t, itest.Await(t, started, 30*time.Second, "Start"))
		r.requireSettled("/svc", n, true)
		assert.NotEqual(t, old.ID(), r.c.Session().ID())
	})
}
