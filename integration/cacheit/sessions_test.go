package cacheit

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// The cache across faults of its connection, its session and its server:
// ports of Curator's killed-session, reconnect-consistency and
// server-not-started tests, with the reads the cache sends counted
// through its fault link.

// modes runs body once on a cache with one persistent recursive watch (the
// default on ZooKeeper 3.6+) and once with a watch per node. They differ in
// the reads a reconnect costs: per node, the server sets the watches again
// and fires those whose node changed, so a reconnect with nothing changed
// costs no read; the persistent watch is set again with nothing replayed,
// so the cache reads every node again (listing only those whose children
// changed), as Curator's CuratorCache does.
func modes(t *testing.T, body func(t *testing.T, perNode bool, opts ...cache.Option)) {
	t.Run("persistent", func(t *testing.T) { body(t, false) })
	t.Run("per-node", func(t *testing.T) { body(t, true, cache.WithWatchPerNode()) })
}

// linked is a rig plus a second client, the cache's, behind a fault link.
func linked(t *testing.T, cl *zktest.Cluster, session time.Duration) (*rig, *client.Client, *states, func() int64) {
	r := newRig(t, cl)
	if cl == nil {
		cl = shared
	}
	link := itest.NewLink(t)
	cc := itest.Connect(t, cl, itest.Opts{NS: r.ns, Link: link, Timeout: session})
	r.link = link
	return r, cc, watchStates(t, cc), func() int64 { return settledReads(link) }
}

// settledReads is reads(link) once it has not moved for half a second (at
// most 10 s): the count a test takes as its base or its result must not
// catch the cache between two reads of one step on a loaded machine (a
// new node's listing follows its Created event; a resync's reads follow
// the Reconnected state).
func settledReads(link *faultlink.Link) int64 {
	n := reads(link)
	stable := time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if m := reads(link); m != n {
			n, stable = m, time.Now()
		} else if time.Since(stable) >= 500*time.Millisecond {
			break
		}
	}
	return n
}

// TestCacheNoStormAfterReconnect: a reconnect within the session, with
// nothing changed meanwhile, brings no event, and per node no read (the
// connection sets the watches again; the server fires none), with the
// persistent watch one read a node and no listing. A change made while the
// link was cut brings its one event, per node with the one read that shows it.
func TestCacheNoStormAfterReconnect(t *testing.T) { modes(t, testCacheNoStormAfterReconnect) }

func testCacheNoStormAfterReconnect(t *testing.T, perNode bool, opts ...cache.Option) {
	r, cc, st, nreads := linked(t, nil, 4*time.Second)
	r.create("/r", "")
	for _, k := range []string{"a", "b", "c", "d"} {
		r.create("/r/"+k, "1")
		for _, g := range []string{"x", "y"} {
			r.create("/r/"+k+"/"+g, "1")
		}
	}
	_, rec := startCache(t, cc, "/r", opts...)
	rec.take(t, 14) // 13 nodes and Initialized
	before := nreads()
	perReconnect := int64(13) // the persistent mode reads every node once
	if perNode {
		perReconnect = 0
	}

	r.link.Cut()
	st.await(t, client.StateSuspended, 10*time.Second)
	r.link.Restore()
	st.await(t, client.StateReconnected, 10*time.Second)
	rec.none(t)
	require.Equal(t, before+perReconnect, nreads(), "reads after a reconnect with nothing changed")
	before = nreads()

	r.link.Cut()
	st.await(t, client.StateSuspended, 10*time.Second)
	r.set("/r/b/x", "2")
	r.link.Restore()
	st.await(t, client.StateReconnected, 10*time.Second)
	rec.next(t, "NODE_CHANGED /r/b/x=2")
	rec.none(t)
	want := before + 1
	if !perNode {
		want = before + perReconnect // the written node's among them
	}
	require.Equal(t, want, nreads(), "reads after a reconnect with one node written")
}

// TestCacheReconnectConsistency is a port of
// TestCuratorCacheEdges.testReconnectConsistency: nodes change while the
// cache is cut off (within its session); once back, it sees exactly those
// changes and ends with the server's 11 nodes.
func TestCacheReconnectConsistency(t *testing.T) { modes(t, testCacheReconnectConsistency) }

func testCacheReconnectConsistency(t *testing.T, perNode bool, opts ...cache.Option) {
	r, cc, st, nreads := linked(t, nil, 4*time.Second)
	for _, p := range []string{"/root", "/root/1", "/root/2", "/root/1/11", "/root/1/12", "/root/1/13", "/root/2/21", "/root/2/22"} {
		r.create(p, "one")
	}
	ch, rec := startCache(t, cc, "/root", opts...)
	rec.take(t, 9)
	before := nreads()

	r.link.Cut()
	st.await(t, client.StateSuspended, 10*time.Second)
	r.del("/root/2/21")
	r.del("/root/2/22")
	r.del("/root/2")
	r.set("/root", "two")
	for _, p := range []string{"/root/1/11/111", "/root/1/11/111/1111", "/root/1/11/111/1112",
		"/root/1/13/131", "/root/1/13/132", "/root/1/13/132/1321"} {
		r.create(p, "two")
	}
	r.link.Restore()
	st.await(t, client.StateReconnected, 10*time.Second)
	rec.nextSet(t, "NODE_DELETED /root/2/21=one", "NODE_DELETED /root/2/22=one", "NODE_DELETED /root/2=one",
		"NODE_CHANGED /root=two",
		"NODE_CREATED /root/1/11/111=two", "NODE_CREATED /root/1/11/111/1111=two", "NODE_CREATED /root/1/11/111/1112=two",
		"NODE_CREATED /root/1/13/131=two", "NODE_CREATED /root/1/13/132=two", "NODE_CREATED /root/1/13/132/1321=two")
	rec.none(t)
	tree := converge(t, ch, rec, r.c, "/root", 10*time.Second)
	require.Len(t, tree, 11)
	// Per node every read showed a change: 3 deleted nodes, /root and its
	// listing, the listings of /root/1/11 and /root/1/13, and 6 new nodes
	// each read and listed. The persistent mode reads the 8 nodes it knew,
	// lists the 3 whose children changed (/root, /root/1/11, /root/1/13),
	// and reads and lists the 6 new ones.
	bound := int64(3 + 2 + 2 + 12)
	if !perNode {
		bound = 8 + 3 + 12
	}
	require.LessOrEqual(t, nreads()-before, bound, "reads after the reconnect")
}

// TestCacheKilledSession is a port of TestTreeCache.testKilledSession (and
// of TestPathChildrenCache's and TestNodeCache's): the cache's own client
// loses its session; its ephemeral node goes, which the cache tells, and
// nothing else (no second Initialized). After the new session the cache
// follows changes again.
func TestCacheKilledSession(t *testing.T) {
	r, cc, st, _ := linked(t, nil, 1500*time.Millisecond)
	r.create("/test", "")
	ch, rec := startCache(t, cc, "/test")
	rec.next(t, "NODE_CREATED /test=", "INITIALIZED")
	r.create("/test/foo", "foo")
	rec.next(t, "NODE_CREATED /test/foo=foo")
	_, err := cc.Create(r.ctx, "/test/me", []byte("data"), zk.FlagEphemeral)
	require.NoError(t, err)
	rec.next(t, "NODE_CREATED /test/me=data")

	expire(t, r.link, st, nil)
	rec.next(t, "NODE_DELETED /test/me=data")
	rec.none(t)
	r.set("/test/foo", "new data")
	rec.next(t, "NODE_CHANGED /test/foo=new data")
	converge(t, ch, rec, r.c, "/test", 10*time.Second)
}

// TestCacheExpiryWithChanges: while the cache's session expires (its link
// cut for longer than the session timeout), another client writes,
// deletes, creates, and deletes and re-creates nodes. Once the cache has
// a new session it reads its view again and emits only the differences;
// it then equals the server.
func TestCacheExpiryWithChanges(t *testing.T) { modes(t, testCacheExpiryWithChanges) }

func testCacheExpiryWithChanges(t *testing.T, perNode bool, opts ...cache.Option) {
	r, cc, st, nreads := linked(t, nil, 1500*time.Millisecond)
	for _, p := range []string{"/r", "/r/a", "/r/b", "/r/c", "/r/c/x", "/r/u", "/r/u/v", "/r/z"} {
		r.create(p, "1")
	}
	ch, rec := startCache(t, cc, "/r", opts...)
	rec.take(t, 9)
	before := nreads()
	expire(t, r.link, st, func() {
		r.set("/r/a", "2")
		r.del("/r/b")
		r.del("/r/c/x")
		r.create("/r/c/y", "1")
		r.create("/r/d", "1")
		r.create("/r/d/e", "1")
		r.del("/r/z")
		r.create("/r/z", "1") // re-made with the same data: a new node all the same
	})
	rec.nextSet(t, "NODE_CHANGED /r/a=2", "NODE_DELETED /r/b=1", "NODE_DELETED /r/c/x=1", "NODE_CREATED /r/c/y=1",
		"NODE_CREATED /r/d=1", "NODE_CREATED /r/d/e=1", "NODE_CHANGED /r/z=1")
	rec.none(t)
	converge(t, ch, rec, r.c, "/r", 10*time.Second)
	// Reading the view again: each of the 8 nodes known and the 3 found
	// read once and listed once, and /r/z, found made again, listed again.
	// (The persistent mode lists fewer: only the nodes whose children changed.)
	require.LessOrEqual(t, nreads()-before, int64(2*(8+3)+1), "reads after the new session")
	_ = perNode
}

// TestCacheServerRestart is a port of TestTreeCache.testServerNotStartedYet,
// with the server loss of TestCuratorCacheEdges.testServerLoss on one
// server: a cache started while its server is down loads once the server
// is back; a restart with nothing changed brings no event and no read; a
// change made after a restart, before the cache reconnected, is its one
// event.
func TestCacheServerRestart(t *testing.T) { modes(t, testCacheServerRestart) }

func testCacheServerRestart(t *testing.T, perNode bool, opts ...cache.Option) {
	itest.NoLeaks(t) // before the cluster: it is checked after the cluster closed
	cl := zktest.ForTest(t)
	// A session long enough to outlive a restart on a busy machine: these
	// reconnects must be within the session.
	r, cc, st, nreads := linked(t, cl, 20*time.Second)
	ctx := itest.Ctx(t, 2*time.Minute)

	require.NoError(t, cl.StopServer(ctx, 0))
	st.await(t, client.StateSuspended, 10*time.Second)
	ch, rec := startCacheWaiting(t, cc, "/test", opts...) // Start's ctx ends first: it loads later
	rec.none(t)
	require.NoError(t, cl.StartServer(ctx, 0))
	st.await(t, client.StateReconnected, 30*time.Second)
	rec.next(t, "INITIALIZED")
	require.True(t, itest.WaitClosed(ch.Initialized(), 10*time.Second), "Initialized once the server is back")
	r.create("/test", "")
	r.create("/test/one", "1")
	rec.next(t, "NODE_CREATED /test=", "NODE_CREATED /test/one=1")
	rec.none(t) // and the listing of /test/one, which follows its Created, is done
	before := nreads()
	sid := cc.Session().ID()

	require.NoError(t, cl.StopServer(ctx, 0))
	st.await(t, client.StateSuspended, 10*time.Second)
	require.NoError(t, cl.StartServer(ctx, 0))
	st.await(t, client.StateReconnected, 30*time.Second)
	rec.none(t) // no event, whether the session lived or not
	if cc.Session().ID() == sid {
		want := before
		if !perNode {
			want += 2 // the persistent mode reads its 2 nodes again
		}
		require.Equal(t, want, nreads(), "reads after a restart with nothing changed")
	} else {
		// The restart outlasted the session (a busy machine): the cache
		// read everything again, and found nothing to tell.
		t.Logf("the cache's session did not outlive the restart; %d reads to rebuild", nreads()-before)
	}

	r.link.Cut()
	st.await(t, client.StateSuspended, 10*time.Second)
	require.NoError(t, cl.StopServer(ctx, 0))
	require.NoError(t, cl.StartServer(ctx, 0))
	r.set("/test/one", "2")
	r.create("/test/two", "2")
	r.link.Restore()
	st.await(t, client.StateReconnected, 30*time.Second)
	rec.nextSet(t, "NODE_CHANGED /test/one=2", "NODE_CREATED /test/two=2")
	rec.none(t)
	converge(t, ch, rec, r.c, "/test", 10*time.Second)
}
