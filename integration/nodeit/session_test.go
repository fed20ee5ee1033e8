package nodeit

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// TestNodeSessions ports Curator's session scenarios
// (testRecreatesNodeWhenSessionReconnects, ...MultipleTimes,
// testSetDataWhenDisconnected) to faultlink: the client's link is cut
// until it gives its session up, three times over, with data set while
// cut; the node must come back in each new session, once, owned by it,
// with that data. A short cut keeps the session and the very node. Close
// while cut deletes once the link is back. Parallel subtests; no goroutine
// may leak.
func TestNodeSessions(t *testing.T) {
	itest.NoLeaks(t)
	modes := []struct {
		name      string
		opts      []node.Option
		path      string
		ephemeral bool
	}{
		{"Ephemeral", nil, "/svc/w1", true},
		{"Protected", []node.Option{node.WithProtection()}, "/svc/w1", true},
		{"ProtectedSequential", []node.Option{node.WithMode(node.EphemeralSequential), node.WithProtection()}, "/svc/m-", true},
		{"Persistent", []node.Option{node.WithMode(node.Persistent)}, "/svc/p", false},
	}
	for _, m := range modes {
		t.Run("ExpiryRecreates"+m.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, nil, 1500*time.Millisecond)
			r.dir("/svc")
			n := r.newNode(m.path, "v0", m.opts...)
			events, cancel := n.Events()
			defer cancel()
			require.NoError(t, n.Start(r.ctx(30*time.Second)))
			expectEvent(t, events, node.Created, 10*time.Second)
			for i := 1; i <= 3; i++ {
				states, unsub := r.c.Subscribe()
				old := r.c.Session()
				oldPath := n.Path()
				_, st0 := r.read(oldPath)
				require.NotNil(t, st0)
				r.link.Cut()
				itest.WaitState(t, states, client.StateSuspended, old.ID(), 10*time.Second)
				want := fmt.Sprintf("v%d", i)
				res := make(chan error, 1)
				go func() { res <- n.SetData(r.ctx(60*time.Second), []byte(want)) }()
				itest.WaitState(t, states, client.StateLost, old.ID(), 10*time.Second)
				if m.ephemeral {
					// The node went with its session: SetData returns,
					// the data waits for the re-create.
					require.NoError(t, itest.Await(t, res, 10*time.Second, "SetData after the session was lost"))
					assert.Equal(t, node.Gone, nextEvent(t, events, 10*time.Second).Type)
				} else {
					itest.Pending(t, res, 0, "SetData of a persistent node while cut")
				}
				r.link.Restore()
				rec := itest.WaitState(t, states, client.StateReconnected, 0, 20*time.Second)
				unsub()
				require.NotEqual(t, old.ID(), rec.SessionID)
				if m.ephemeral {
					ev := expectEvent(t, events, node.Created, 20*time.Second)
					assert.Equal(t, rec.SessionID, ev.Session)
					assert.Equal(t, n.Path(), ev.Path)
				} else {
					require.NoError(t, itest.Await(t, res, 20*time.Second, "SetData once the link is back"))
				}
				r.requireSettled("/svc", n, m.ephemeral)
				assert.Equal(t, want, string(n.Data()))
				_, st := r.read(n.Path())
				if m.ephemeral {
					assert.NotEqual(t, st0.Czxid, st.Czxid, "round %d: not made again", i)
				} else {
					assert.Equal(t, st0.Czxid, st.Czxid, "round %d: a persistent node was made again", i)
				}
				if m.name == "Ephemeral" {
					assert.Equal(t, oldPath, n.Path())
				}
				if m.name == "ProtectedSequential" {
					assert.Equal(t, seq(oldPath), seq(n.Path()), "made again under its first sequence number")
				}
			}
			require.NoError(t, n.Close(r.ctx(10*time.Second)))
			assert.Empty(t, r.kids("/svc"))
		})
	}

	t.Run("ShortCutKeepsTheNode", func(t *testing.T) {
		t.Parallel()
		// testSetDataWhenDisconnected: the session lives; the data set
		// while cut is in the very same node once the link is back.
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		n := r.newNode("/svc/w1", "Hello World", node.WithProtection())
		events, cancel := n.Events()
		defer cancel()
		require.NoError(t, n.Start(r.ctx(30*time.Second)))
		expectEvent(t, events, node.Created, 10*time.Second)
		_, st0 := r.read(n.Path())
		sess := r.c.Session()
		states, unsub := r.c.Subscribe()
		defer unsub()
		r.link.Cut()
		itest.WaitState(t, states, client.StateSuspended, sess.ID(), 10*time.Second)
		res := make(chan error, 1)
		go func() { res <- n.SetData(r.ctx(30*time.Second), []byte("Updated")) }()
		itest.Pending(t, res, 300*time.Millisecond, "SetData while cut")
		r.link.Restore()
		itest.WaitState(t, states, client.StateReconnected, sess.ID(), 10*time.Second)
		require.NoError(t, itest.Await(t, res, 10*time.Second, "SetData once the link is back"))
		data, st := r.read(n.Path())
		assert.Equal(t, "Updated", string(data))
		assert.Equal(t, st0.Czxid, st.Czxid, "the node was made again")
		assert.Equal(t, sess.ID(), st.EphemeralOwner)
		assert.Len(t, r.kids("/svc"), 1)
		itest.Pending(t, events, 0, "a node event on a same-session reconnect")
	})

	t.Run("CloseWhileCut", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		n := r.start("/svc/w1", "x")
		r.link.Cut()
		err := n.Close(r.ctx(500 * time.Millisecond))
		require.ErrorIs(t, err, zkrecipes.ErrDeletePending)
		assert.Len(t, r.kids("/svc"), 1, "the node went while cut")
		r.link.Restore()
		itest.Eventually(t, 10*time.Second, "the pending delete runs once the link is back", func() bool {
			return len(r.kids("/svc")) == 0 && r.c.PendingDeletes() == 0
		})
	})
}

// seq is the sequence number at the end of a sequential node's path.
func seq(p string) string {
	if len(p) < 10 {
		return ""
	}
	return p[len(p)-10:]
}
