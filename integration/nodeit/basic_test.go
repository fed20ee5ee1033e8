package nodeit

import (
	"context"
	"strings"
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

// TestNodeBasics ports the plain scenarios of Curator's
// TestPersistentEphemeralNode and TestPersistentNode on the shared server:
// the node holds its data and its session, SetData writes through, a
// deleted node is made again, two sequential nodes get two paths, a node
// of another session is adopted and replaced once it goes, a persistent
// node outlives its client, a handle started before its client makes the
// node once the client has a session, and Close (even right after Start)
// leaves nothing. Each scenario is a parallel subtest; no goroutine may leak.
func TestNodeBasics(t *testing.T) {
	itest.NoLeaks(t)
	t.Run("DataOwnerSetDataClose", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		n := r.newNode("/svc/w1", "Hello World")
		events, cancel := n.Events()
		defer cancel()
		require.NoError(t, n.Start(r.ctx(30*time.Second)))
		assertSays(t, n.Start(r.ctx(30*time.Second)), zkrecipes.ErrAlreadyStarted, "zkrecipes: node is already started")
		ev := expectEvent(t, events, node.Created, 10*time.Second)
		assert.Equal(t, "/svc/w1", ev.Path)
		assert.Equal(t, r.c.Session().ID(), ev.Session)
		assert.Equal(t, "/svc/w1", n.Path())
		r.requireSettled("/svc", n, true)

		// testSettingData: each SetData is in the node when it returns.
		for _, d := range []string{"b", "c", ""} {
			require.NoError(t, n.SetData(r.ctx(10*time.Second), []byte(d)))
			data, _ := r.read("/svc/w1")
			assert.Equal(t, d, string(data))
			assert.Equal(t, "/svc/w1", n.Path())
		}
		require.NoError(t, n.SetData(r.ctx(10*time.Second), nil))
		data, st := r.read("/svc/w1")
		require.NotNil(t, st)
		assert.Empty(t, data)

		// testDeletesNodeWhenClosed, testClosingMultipleTimes.
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		_, st = r.read("/svc/w1")
		assert.Nil(t, st, "the node is there after Close")
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		_, ok := <-events
		assert.False(t, ok, "the event channel is open after Close")
		assert.Zero(t, r.c.PendingDeletes())
		assertSays(t, n.SetData(r.ctx(time.Second), []byte("x")), zkrecipes.ErrClosed, "zkrecipes: node is closed")
		assertSays(t, n.Start(r.ctx(time.Second)), zkrecipes.ErrClosed, "zkrecipes: node is closed")
		_, st = r.read("/svc/w1")
		assert.Nil(t, st, "a call after Close made the node again")
	})

	t.Run("ProtectedSequentialSetData", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/grp")
		n := r.start("/grp/member-", "a", node.WithMode(node.EphemeralSequential), node.WithProtection())
		name := strings.TrimPrefix(n.Path(), "/grp/")
		assert.True(t, strings.HasPrefix(name, client.ProtectedPrefix), name)
		assert.Len(t, name, len("_c_")+36+len("-member-")+10, name)
		p := n.Path()
		for _, d := range []string{"b", "c"} {
			require.NoError(t, n.SetData(r.ctx(10*time.Second), []byte(d)))
			r.requireSettled("/grp", n, true)
			assert.Equal(t, p, n.Path(), "SetData changed the path")
		}
	})

	t.Run("RecreatedAfterDelete", func(t *testing.T) {
		t.Parallel()
		for _, protect := range []bool{false, true} {
			r := newRig(t, nil, 4*time.Second)
			r.dir("/svc")
			var opts []node.Option
			if protect {
				opts = append(opts, node.WithProtection())
			}
			n := r.newNode("/svc/w1", "v1", opts...)
			events, cancel := n.Events()
			require.NoError(t, n.Start(r.ctx(30*time.Second)))
			expectEvent(t, events, node.Created, 10*time.Second)
			require.NoError(t, n.SetData(r.ctx(10*time.Second), []byte("v2")))
			sess := r.c.Session().ID()
			for i := 0; i < 3; i++ {
				old := n.Path()
				_, st := r.read(old)
				require.NotNil(t, st)
				require.NoError(t, r.obs.Delete(r.ctx(10*time.Second), old, -1))
				assert.Equal(t, node.Event{Type: node.Gone, Path: old, Session: sess}, nextEvent(t, events, 10*time.Second))
				ev := expectEvent(t, events, node.Created, 10*time.Second)
				assert.Equal(t, sess, ev.Session)
				assert.Equal(t, ev.Path, n.Path())
				if protect {
					assert.NotEqual(t, old, n.Path(), "a protected node made again has a new UUID")
				} else {
					assert.Equal(t, old, n.Path(), "the same session makes it again at the same path")
				}
				r.requireSettled("/svc", n, true)
				assert.Equal(t, "v2", string(n.Data()))
			}
			cancel()
		}
	})

	t.Run("UniquePaths", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/grp")
		opts := []node.Option{node.WithMode(node.EphemeralSequential), node.WithProtection()}
		a := r.start("/grp/m-", "a", opts...)
		b := r.start("/grp/m-", "b", opts...)
		assert.NotEqual(t, a.Path(), b.Path())
		assert.Len(t, r.kids("/grp"), 2)
		require.NoError(t, a.Close(r.ctx(10*time.Second)))
		r.requireSettled("/grp", b, true)
	})

	t.Run("AdoptsAnotherSessionsNode", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		// testRecreatesNodeWhenEphemeralOwnerSessionExpires and
		// testSetDataWhenNodeExists: another process's ephemeral node is
		// at the path. It is taken over (our data written there) and,
		// once its session ends, replaced by ours.
		other := itest.Connect(t, r.cl, itest.Opts{NS: r.c.Namespace(), Timeout: 4 * time.Second})
		_, err := other.Create(r.ctx(10*time.Second), "/svc/w1", []byte("InitialData"), zk.FlagEphemeral)
		require.NoError(t, err)
		otherID := other.Session().ID()
		_, _, watch, err := r.obs.GetW(r.ctx(10*time.Second), "/svc/w1")
		require.NoError(t, err)

		n := r.newNode("/svc/w1", "Hello World")
		events, cancel := n.Events()
		defer cancel()
		require.NoError(t, n.Start(r.ctx(30*time.Second)))
		assert.Equal(t, node.Event{Type: node.Adopted, Path: "/svc/w1", Session: otherID}, nextEvent(t, events, 10*time.Second))
		ev := itest.Await(t, watch, 10*time.Second, "the data change of the adopted node")
		assert.Equal(t, zk.EventNodeDataChanged, ev.Type)
		data, st := r.read("/svc/w1")
		assert.Equal(t, "Hello World", string(data))
		assert.Equal(t, otherID, st.EphemeralOwner)

		require.NoError(t, other.Close())
		expectEvent(t, events, node.Gone, 20*time.Second)
		ev2 := expectEvent(t, events, node.Created, 20*time.Second)
		assert.Equal(t, r.c.Session().ID(), ev2.Session)
		r.requireSettled("/svc", n, true)
	})

	t.Run("AdoptsPersistentNodeAndCloseDeletesIt", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		// testQuickCloseNodeExists: Close deletes a node the handle took
		// over, as Curator's does.
		_, err := r.obs.Create(r.ctx(10*time.Second), "/svc/w1", []byte("old"), zk.FlagPersistent)
		require.NoError(t, err)
		n := r.start("/svc/w1", "new", node.WithMode(node.Persistent))
		r.requireSettled("/svc", n, false)
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
		assert.Empty(t, r.kids("/svc"))
	})

	t.Run("PersistentOutlivesItsClient", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		// TestPersistentNode.testBasic: the session ends, the node stays.
		n := r.start("/svc/p", "hey", node.WithMode(node.Persistent))
		sess := r.c.Session().ID()
		require.NoError(t, r.c.Close())
		itest.Eventually(t, 10*time.Second, "the client's session ends on the server", func() bool {
			_, st := r.read("/svc/p")
			return st != nil && st.EphemeralOwner == 0 && sess != 0
		})
		data, _ := r.read("/svc/p")
		assert.Equal(t, "hey", string(data))
		err := n.Close(r.ctx(10 * time.Second))
		assert.ErrorIs(t, err, zkrecipes.ErrClosed, "Close after the client's must say the node stays")
		assert.ErrorContains(t, err, "zkrecipes: client is closed")
		require.NoError(t, r.obs.Delete(r.ctx(10*time.Second), "/svc/p", -1))
	})

	t.Run("EphemeralGoesWithItsClient", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		n := r.start("/svc/e", "x")
		require.NoError(t, r.c.Close())
		itest.Eventually(t, 10*time.Second, "the ephemeral node goes with the closed client's session", func() bool {
			return len(r.kids("/svc")) == 0
		})
		assert.NoError(t, n.Close(r.ctx(10*time.Second)))
		assertSays(t, n.Start(r.ctx(time.Second)), zkrecipes.ErrClosed, "zkrecipes: node is closed")
	})

	t.Run("QuickClose", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		// testQuickClose: Start and Close at once leave nothing, whether
		// or not the create had gone out. Start is given a ctx that has
		// ended: it returns at once (ctx's error, unless the node was made
		// already) and the create goes on in the background.
		modes := map[string][]node.Option{
			"ephemeral":            nil,
			"protected":            {node.WithProtection()},
			"persistent":           {node.WithMode(node.Persistent)},
			"protected sequential": {node.WithMode(node.PersistentSequential), node.WithProtection()},
			"ttl":                  {node.WithTTL(time.Minute)},
		}
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		for name, opts := range modes {
			for i := 0; i < 5; i++ {
				n, err := node.New(r.c, "/svc/q", []byte(name), opts...)
				require.NoError(t, err)
				if err := n.Start(ended); err != nil {
					require.ErrorIs(t, err, context.Canceled, name)
				}
				if i%2 == 1 {
					time.Sleep(time.Duration(i) * time.Millisecond)
				}
				require.NoError(t, n.Close(r.ctx(10*time.Second)), name)
				assert.Empty(t, r.kids("/svc"), "%s, round %d", name, i)
			}
		}
		assert.Zero(t, r.c.PendingDeletes())
	})

	t.Run("ClientStartedLater", func(t *testing.T) {
		t.Parallel()
		// testNoServerAtStart: the handle starts before its client has a
		// session (Start's ctx ends first: ctx's error), and makes the node
		// once it has one.
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		c, err := client.New(client.WithServers(r.cl.Addrs()...), client.WithNamespace(r.c.Namespace()))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		n, err := node.New(c, "/svc/w1", []byte("hello"))
		require.NoError(t, err)
		events, cancel := n.Events()
		defer cancel()
		short, stop := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer stop()
		err = n.Start(short)
		assertSays(t, err, context.DeadlineExceeded, "zkrecipes: start node /svc/w1")
		assert.Empty(t, r.kids("/svc"), "a node before the client started")
		require.NoError(t, c.Start(r.ctx(30*time.Second)))
		ev := expectEvent(t, events, node.Created, 30*time.Second)
		assert.Equal(t, "/svc/w1", ev.Path)
		data, st := r.read("/svc/w1")
		require.NotNil(t, st)
		assert.Equal(t, "hello", string(data))
		assert.Equal(t, c.Session().ID(), st.EphemeralOwner)
		require.NoError(t, n.Close(r.ctx(10*time.Second)))
	})

	t.Run("LateSubscriber", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, nil, 4*time.Second)
		r.dir("/svc")
		n := r.start("/svc/w1", "x", node.WithProtection())
		events, cancel := n.Events()
		ev := expectEvent(t, events, node.Created, 5*time.Second)
		assert.Equal(t, n.Path(), ev.Path, "a late subscriber gets the current node first")
		cancel()
		cancel()
		_, ok := <-events
		assert.False(t, ok)
		ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		require.NoError(t, n.Close(ctx))
	})
}

// assertSays checks that err matches sentinel and says msg: what is
// closed, the node or its client.
func assertSays(t *testing.T, err, sentinel error, msg string) {
	t.Helper()
	assert.ErrorIs(t, err, sentinel)
	assert.ErrorContains(t, err, msg)
}
