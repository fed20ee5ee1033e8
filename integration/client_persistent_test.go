package integration

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
)

// Persistent and persistent recursive watches (ZooKeeper 3.6+),
// set again after a reconnect or a session loss, with a resync event since
// the server does not replay what changed meanwhile.

// pwNext returns the watch's next event within 10 s.
func pwNext(t *testing.T, w *client.PersistentWatch) client.WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		require.True(t, ok, "the watch's events closed")
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no persistent watch event within 10s")
	}
	return client.WatchEvent{}
}

// pwExpect reads events until one that is not a resync, and checks it.
func pwExpect(t *testing.T, w *client.PersistentWatch, typ zk.EventType, path string) {
	t.Helper()
	ev := pwNext(t, w)
	require.False(t, ev.Resync, "unexpected resync")
	require.Equal(t, typ, ev.Type, "event %+v", ev)
	require.Equal(t, path, ev.Path, "event %+v", ev)
}

func pwQuiet(t *testing.T, w *client.PersistentWatch) {
	t.Helper()
	select {
	case ev := <-w.Events():
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestClientPersistentRecursiveWatch: one watch sees every create, data
// change and delete under its root, in order, and nothing outside it; it
// does not end when it fires.
func TestClientPersistentRecursiveWatch(t *testing.T) {
	noLeaks(t)
	c := connect(t, clientOpts{ns: namespace(t)})
	ctx := ctxT(t, 30*time.Second)
	w, err := c.AddWatch(ctx, "/tree", true)
	require.NoError(t, err)

	for _, p := range []string{"/tree", "/tree/a", "/tree/a/deep"} {
		_, err = c.Create(ctx, p, nil, 0)
		require.NoError(t, err)
	}
	pwExpect(t, w, zk.EventNodeCreated, "/tree")
	pwExpect(t, w, zk.EventNodeCreated, "/tree/a")
	pwExpect(t, w, zk.EventNodeCreated, "/tree/a/deep")
	_, err = c.Set(ctx, "/tree/a/deep", []byte("1"), -1)
	require.NoError(t, err)
	pwExpect(t, w, zk.EventNodeDataChanged, "/tree/a/deep")
	_, err = c.Set(ctx, "/tree/a/deep", []byte("2"), -1)
	require.NoError(t, err)
	pwExpect(t, w, zk.EventNodeDataChanged, "/tree/a/deep")
	_, err = c.Create(ctx, "/treeish", nil, 0)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, "/tree/a/deep", -1))
	pwExpect(t, w, zk.EventNodeDeleted, "/tree/a/deep")
	pwQuiet(t, w)

	require.NoError(t, w.Remove(ctx))
	_, ok := <-w.Events()
	require.False(t, ok, "Events stays open after Remove")
	require.NoError(t, w.Remove(ctx), "a second Remove")
}

// TestClientPersistentWatchNode: a non-recursive persistent watch sees its
// node's data and children changes, again and again, and not its grandchildren's.
func TestClientPersistentWatchNode(t *testing.T) {
	noLeaks(t)
	c := connect(t, clientOpts{ns: namespace(t)})
	ctx := ctxT(t, 30*time.Second)
	_, err := c.Create(ctx, "/node", nil, 0, client.WithParents())
	require.NoError(t, err)
	w, err := c.AddWatch(ctx, "/node", false)
	require.NoError(t, err)
	_, err = c.AddWatch(ctx, "/node", true)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "a second watch on the path in the other mode")
	for i := range 2 {
		_, err = c.Set(ctx, "/node", []byte{byte(i)}, -1)
		require.NoError(t, err)
		pwExpect(t, w, zk.EventNodeDataChanged, "/node")
	}
	_, err = c.Create(ctx, "/node/kid", nil, 0)
	require.NoError(t, err)
	pwExpect(t, w, zk.EventNodeChildrenChanged, "/node")
	_, err = c.Create(ctx, "/node/kid/grand", nil, 0)
	require.NoError(t, err)
	pwQuiet(t, w)
	// Removed on the server too: the client gets no notification for a
	// change after Remove (NodeEvents carries every one it gets).
	all, stop, err := c.NodeEvents("/")
	require.NoError(t, err)
	defer stop()
	require.NoError(t, w.Remove(ctx))
	_, err = c.Set(ctx, "/node", []byte("after"), -1)
	require.NoError(t, err)
	select {
	case ev := <-all:
		t.Fatalf("a notification after Remove: %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestClientPersistentWatchAcrossFaults: after a short cut (the same
// session) the watch gets a resync event and keeps working; after a cut
// long enough to lose the session it is set again on the new session, with
// a resync event, and keeps working.
func TestClientPersistentWatchAcrossFaults(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	link := newLink(t)
	const timeout = 1500 * time.Millisecond
	c := connect(t, clientOpts{ns: ns, link: link, timeout: timeout})
	ctx := ctxT(t, 60*time.Second)
	w, err := c.AddWatch(ctx, "/tree", true)
	require.NoError(t, err)
	events, cancel := c.Subscribe()
	defer cancel()
	sid := c.Session().ID()

	link.Cut()
	clExpect(t, events, client.StateSuspended, sid, 10*time.Second)
	link.Restore()
	clExpect(t, events, client.StateReconnected, sid, 10*time.Second)
	ev := pwNext(t, w)
	require.True(t, ev.Resync, "after a reconnect: %+v", ev)
	_, err = c.Create(ctx, "/tree/a", nil, 0, client.WithParents())
	require.NoError(t, err)
	pwExpect(t, w, zk.EventNodeCreated, "/tree")
	pwExpect(t, w, zk.EventNodeCreated, "/tree/a")

	link.Cut()
	clExpect(t, events, client.StateSuspended, sid, 10*time.Second)
	clExpect(t, events, client.StateLost, sid, 20*timeout)
	link.Restore()
	next := clNext(t, events, 30*time.Second)
	require.Equal(t, client.StateReconnected, next.State, "after Lost: %s", clDescribe(next))
	require.NotEqual(t, sid, next.SessionID)
	ev = pwNext(t, w)
	require.True(t, ev.Resync, "after a new session: %+v", ev)
	_, err = c.Set(ctx, "/tree/a", []byte("x"), -1)
	require.NoError(t, err)
	pwExpect(t, w, zk.EventNodeDataChanged, "/tree/a")
	require.NoError(t, w.Remove(ctx))
}

// TestClientNewerRequests: getEphemerals, getAllChildrenNumber and whoAmI
// (ZooKeeper 3.6/3.7), through the namespace.
func TestClientNewerRequests(t *testing.T) {
	noLeaks(t)
	c := connect(t, clientOpts{ns: namespace(t), extra: []client.Option{client.WithDigestAuth("ops", "pw")}})
	other := connect(t, clientOpts{ns: namespace(t)})
	ctx := ctxT(t, 30*time.Second)
	for _, p := range []string{"/a", "/a/b", "/a/b/c"} {
		_, err := c.Create(ctx, p, nil, 0)
		require.NoError(t, err)
	}
	e1, err := c.Create(ctx, "/a/e1", nil, zk.FlagEphemeral)
	require.NoError(t, err)
	e2, err := c.Create(ctx, "/a/b/e2", nil, zk.FlagEphemeral)
	require.NoError(t, err)
	_, err = other.Create(ctx, "/theirs", nil, zk.FlagEphemeral)
	require.NoError(t, err)

	eph, err := c.Ephemerals(ctx, "/")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{e1, e2}, eph, "the session's ephemerals, relative to the namespace")
	eph, err = c.Ephemerals(ctx, "/a/b")
	require.NoError(t, err)
	require.Equal(t, []string{e2}, eph)

	n, err := c.CountDescendants(ctx, "/a")
	require.NoError(t, err)
	require.Equal(t, 4, n, "b, c, e1 and e2 under /a")

	ids, err := c.WhoAmI(ctx)
	require.NoError(t, err)
	require.Contains(t, ids, client.Identity{Scheme: "digest", User: "ops"})
}
