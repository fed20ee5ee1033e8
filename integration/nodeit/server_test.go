package nodeit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestNodeServers ports Curator's server scenarios (testProtected,
// testEphemeralSequentialWithProtectionReconnection,
// testSetUpdatedDataWhenReconnected, testListenersReconnectedIsFast) on
// clusters of their own: a single server restarted within the session
// timeout keeps the very nodes, with data set while it was down; one
// restarted past the timeout gets new nodes in the new session, the
// handle deleting its old session's node, which the restarted server
// keeps for a session timeout; in a 3-server ensemble, the nodes survive
// the loss of the client's server and a restart of every server. The
// subtests run in parallel; no goroutine may leak.
func TestNodeServers(t *testing.T) {
	itest.NoLeaks(t)
	t.Run("SingleServer", func(t *testing.T) {
		t.Parallel()
		cl := zktest.ForTest(t)
		// Long sessions, so that the first restart cannot outlast them.
		r := newRig(t, cl, 20*time.Second)
		r.dir("/svc")
		a := r.start("/svc/w1", "a0")
		b := r.start("/svc/m-", "b0", node.WithMode(node.EphemeralSequential), node.WithProtection())
		sess := r.c.Session()
		paths := []string{a.Path(), b.Path()}
		var czxids []int64
		for _, p := range paths {
			_, st := r.read(p)
			require.NotNil(t, st)
			czxids = append(czxids, st.Czxid)
		}

		ctx := r.ctx(2 * time.Minute)
		require.NoError(t, cl.StopServer(ctx, 0))
		res := make(chan error, 2)
		go func() { res <- a.SetData(ctx, []byte("a1")) }()
		go func() { res <- b.SetData(ctx, []byte("b1")) }()
		itest.Pending(t, res, 200*time.Millisecond, "SetData while the server is down")
		require.NoError(t, cl.StartServer(ctx, 0))
		for range 2 {
			require.NoError(t, itest.Await(t, res, 30*time.Second, "SetData once the server is back"))
		}
		assert.Same(t, sess, r.c.Session(), "the session did not survive a short restart")
		assert.Equal(t, paths, []string{a.Path(), b.Path()})
		r.settledTogether("/svc", a, b) // no second node after the restart
		for i, p := range paths {
			data, st := r.read(p)
			require.NotNil(t, st)
			assert.Equal(t, czxids[i], st.Czxid, "%s was made again", p)
			assert.Equal(t, sess.ID(), st.EphemeralOwner)
			assert.Equal(t, []string{"a1", "b1"}[i], string(data))
		}

		// A restart that outlasts a second client's session: the client
		// gives the session up, the server brings it back with its nodes
		// for a session timeout, and the handles delete those themselves.
		r2 := newRig(t, cl, 5*time.Second)
		r2.dir("/svc2")
		c := r2.start("/svc2/w1", "c0")
		d := r2.start("/svc2/m-", "d0", node.WithMode(node.EphemeralSequential), node.WithProtection())
		old := r2.c.Session()
		states, unsub := r2.c.Subscribe()
		defer unsub()
		deletes := r2.link.Requests(faultlink.OpDelete)
		require.NoError(t, cl.StopServer(ctx, 0))
		itest.WaitState(t, states, client.StateLost, old.ID(), time.Minute)
		require.NoError(t, c.SetData(ctx, []byte("c1")), "SetData after the session was lost")
		require.NoError(t, cl.StartServer(ctx, 0))
		itest.WaitState(t, states, client.StateReconnected, 0, time.Minute)
		r2.settledTogether("/svc2", c, d)
		assert.NotEqual(t, old.ID(), r2.c.Session().ID())
		assert.GreaterOrEqual(t, r2.link.Requests(faultlink.OpDelete)-deletes, int64(2),
			"the handles did not delete their old session's nodes")
		assert.Equal(t, "c1", string(c.Data()))
		r.settledTogether("/svc", a, b)
	})

	t.Run("Ensemble", func(t *testing.T) {
		t.Parallel()
		cl := zktest.ForTest(t, zktest.WithServers(3))
		r := newRig(t, cl, 4*time.Second)
		r.dir("/svc")
		r.dir("/pers")
		a := r.start("/svc/w1", "a0")
		b := r.start("/svc/m-", "b0", node.WithMode(node.EphemeralSequential), node.WithProtection())
		p := r.start("/pers/p", "p0", node.WithMode(node.Persistent))
		sess := r.c.Session()
		_, stA := r.read(a.Path())
		require.NotNil(t, stA)

		// The client's server dies: the client moves, the session and its
		// nodes stay.
		ctx := r.ctx(3 * time.Minute)
		i := slices.Index(cl.Addrs(), r.link.Remote())
		require.GreaterOrEqual(t, i, 0, "the client's server")
		require.NoError(t, cl.KillServer(ctx, i))
		require.NoError(t, a.SetData(ctx, []byte("a1")))
		require.NoError(t, b.SetData(ctx, []byte("b1")))
		assert.Same(t, sess, r.c.Session(), "the session did not survive its server")
		_, st := r.read(a.Path())
		require.NotNil(t, st)
		assert.Equal(t, stA.Czxid, st.Czxid, "the node was made again")
		r.settledTogether("/svc", a, b)
		require.NoError(t, cl.StartServer(ctx, i))

		// Every server restarts: sessions may or may not outlive it; the
		// nodes are there afterwards either way, once each.
		for s := range cl.Size() {
			require.NoError(t, cl.StopServer(ctx, s))
		}
		var wg sync.WaitGroup
		errs := make([]error, cl.Size())
		for s := range cl.Size() {
			wg.Add(1)
			go func() { defer wg.Done(); errs[s] = cl.StartServer(ctx, s) }()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		require.NoError(t, a.SetData(ctx, []byte("a2")))
		r.settledTogether("/svc", a, b)
		r.requireSettled("/pers", p, false)
		assert.Equal(t, "a2", string(a.Data()))
		for _, n := range []*node.Node{a, b, p} {
			require.NoError(t, n.Close(ctx))
		}
		assert.Empty(t, r.kids("/svc"))
		assert.Empty(t, r.kids("/pers"))
	})
}

// settledTogether waits (up to 30 s) until dir holds exactly the nodes of
// ns, each at its Path, with its data, owned by the client's live session.
func (r *rig) settledTogether(dir string, ns ...*node.Node) {
	r.t.Helper()
	until(r.t, 30*time.Second, func() string {
		var want []string
		for _, n := range ns {
			want = append(want, n.Path())
		}
		slices.Sort(want)
		kids, err := itest.TryChildren(r.obs, dir)
		if err != nil {
			return err.Error()
		}
		var got []string
		for _, k := range kids {
			got = append(got, dir+"/"+k)
		}
		if !slices.Equal(got, want) {
			return fmt.Sprintf("children %v, want %v", got, want)
		}
		sess := r.c.Session()
		for _, n := range ns {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			data, st, err := r.obs.Get(ctx, n.Path())
			cancel()
			switch {
			case err != nil:
				return err.Error()
			case string(data) != string(n.Data()):
				return fmt.Sprintf("%s holds %q, want %q", n.Path(), data, n.Data())
			case sess == nil || st.EphemeralOwner != sess.ID():
				return fmt.Sprintf("%s is owned by 0x%x, want the live session %v", n.Path(), uint64(st.EphemeralOwner), sess)
			}
		}
		return ""
	})
}
