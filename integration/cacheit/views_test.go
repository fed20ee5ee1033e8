package cacheit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// Ports of Curator's TestNodeCache, TestPathChildrenCache and
// TestCuratorCache, and of TestTreeCache's root and namespace cases.

// TestCacheFromRoot is a port of TestTreeCache.testFromRoot: a cache of
// "/" on a client without a namespace. The shared server holds other
// tests' nodes (and /zookeeper), so a filter keeps this test's own, as
// Curator's test leaves /zookeeper's events out.
func TestCacheFromRoot(t *testing.T) {
	itest.NoLeaks(t)
	top := strings.TrimPrefix(itest.Namespace(t), "/it/")
	c := itest.Connect(t, shared, itest.Opts{})
	ctx := itest.Ctx(t, time.Minute)
	_, err := c.Create(ctx, "/"+top, nil, 0)
	require.NoError(t, err)
	defer func() { _ = c.Delete(ctx, "/"+top+"/one", -1); _ = c.Delete(ctx, "/"+top, -1) }()
	_, err = c.Create(ctx, "/"+top+"/one", []byte("hey there"), 0)
	require.NoError(t, err)
	mine := func(p string) bool { return p == "/"+top || strings.HasPrefix(p, "/"+top+"/") }
	for _, depth := range []int{0, 1} { // 1: a port of testFromRootWithDepth
		t.Run(fmt.Sprintf("depth=%d", depth), func(t *testing.T) {
			opts := []cache.Option{cache.WithFilter(mine)}
			if depth > 0 {
				opts = append(opts, cache.WithDepth(depth))
			}
			ch, rec := startCache(t, c, "/", opts...)
			rec.next(t, "NODE_CREATED /=", "NODE_CREATED /"+top+"=")
			if depth == 0 {
				rec.next(t, "NODE_CREATED /"+top+"/one=hey there")
			}
			rec.next(t, "INITIALIZED")
			rec.none(t)
			require.Equal(t, []string{top}, names(ch.Children("/")))
			if depth == 0 {
				require.Equal(t, []string{"one"}, names(ch.Children("/"+top)))
				require.Equal(t, "hey there", data(t, ch, "/"+top+"/one"))
			} else {
				require.Empty(t, ch.Children("/"+top))
				_, ok := ch.Get("/" + top + "/one")
				require.False(t, ok)
			}
		})
	}
}

// TestCacheWithNamespace is a port of TestTreeCache.testWithNamespace and
// testWithNamespaceAtRoot: paths are the namespace's, "/" is its root.
func TestCacheWithNamespace(t *testing.T) {
	r := newRig(t, nil)
	r.creates("/outer", "/outer/foo", "/outer/test")
	r.create("/outer/test/one", "hey there")
	outer := itest.Connect(t, shared, itest.Opts{NS: r.ns + "/outer"})
	ch, rec := startCache(t, outer, "/test")
	rec.next(t, "NODE_CREATED /test=test", "NODE_CREATED /test/one=hey there", "INITIALIZED")
	rec.none(t)
	require.Equal(t, []string{"one"}, names(ch.Children("/test")))
	require.Equal(t, "hey there", data(t, ch, "/test/one"))

	at, rec2 := startCache(t, outer, "/")
	rec2.next(t, "NODE_CREATED /=outer")
	rec2.nextSet(t, "NODE_CREATED /foo=foo", "NODE_CREATED /test=test", "NODE_CREATED /test/one=hey there")
	rec2.next(t, "INITIALIZED")
	rec2.none(t)
	require.Equal(t, []string{"foo", "test"}, names(at.Children("/")))
	require.Equal(t, []string{"one"}, names(at.Children("/test")))

	r.set("/outer/test/one", "sup")
	rec.next(t, "NODE_CHANGED /test/one=sup")
	rec2.next(t, "NODE_CHANGED /test/one=sup")
}

// TestNodeCacheBasics is a port of TestNodeCache.testBasics: one node
// (WithSingleNode), missing at first.
func TestNodeCacheBasics(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	ch, rec := startCache(t, r.c, "/test/node", cache.WithSingleNode())
	rec.next(t, "INITIALIZED")
	_, ok := ch.Get("/test/node")
	require.False(t, ok)
	r.create("/test/node", "a")
	rec.next(t, "NODE_CREATED /test/node=a")
	require.Equal(t, "a", data(t, ch, "/test/node"))
	r.set("/test/node", "b")
	rec.next(t, "NODE_CHANGED /test/node=b")
	require.Equal(t, "b", data(t, ch, "/test/node"))
	r.del("/test/node")
	rec.next(t, "NODE_DELETED /test/node=b")
	require.Zero(t, ch.Len())
	rec.none(t)
}

// TestNodeCacheDeleteThenCreate is a port of TestNodeCache.testDeleteThenCreate.
func TestNodeCacheDeleteThenCreate(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/foo", "one")
	ch, rec := startCache(t, r.c, "/test/foo", cache.WithSingleNode())
	rec.next(t, "NODE_CREATED /test/foo=one", "INITIALIZED")
	r.del("/test/foo")
	rec.next(t, "NODE_DELETED /test/foo=one")
	r.create("/test/foo", "two")
	rec.next(t, "NODE_CREATED /test/foo=two")
	require.Equal(t, "two", data(t, ch, "/test/foo"))
	rec.none(t)
}

// TestCacheRecreatedUnseen: a node deleted and made again in one
// transaction (no read of the cache sees it missing) is a Changed event
// whose Old is the former node, and its children are the new node's.
func TestCacheRecreatedUnseen(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	r.create("/test/foo", "one")
	r.create("/test/foo/kid", "k")
	ch, rec := startCache(t, r.c, "/test/foo")
	rec.next(t, "NODE_CREATED /test/foo=one", "NODE_CREATED /test/foo/kid=k", "INITIALIZED")
	_, err := r.c.Multi(r.ctx,
		&zk.DeleteRequest{Path: "/test/foo/kid", Version: -1},
		&zk.DeleteRequest{Path: "/test/foo", Version: -1},
		&zk.CreateRequest{Path: "/test/foo", Data: []byte("two")})
	require.NoError(t, err)
	// The child's deletion and the parent's change come in either order.
	rec.nextSet(t, "NODE_CHANGED /test/foo=two", "NODE_DELETED /test/foo/kid=k")
	rec.none(t)
	require.Equal(t, 1, ch.Len())
}

// TestPathChildrenCacheParentMissing is a port of
// TestPathChildrenCache.testParentContainerMissing: a children cache
// (WithDepth(1)) of a path that is not there, then is, then is not.
func TestPathChildrenCacheParentMissing(t *testing.T) {
	r := newRig(t, nil)
	_, rec := startCache(t, r.c, "/a/b/test", cache.WithDepth(1))
	rec.next(t, "INITIALIZED")
	_, err := r.c.Create(r.ctx, "/a/b/test/one", nil, 0, client.WithParents())
	require.NoError(t, err)
	r.create("/a/b/test/two", "")
	rec.next(t, "NODE_CREATED /a/b/test=")
	rec.nextSet(t, "NODE_CREATED /a/b/test/one=", "NODE_CREATED /a/b/test/two=")
	r.del("/a/b/test/one")
	r.del("/a/b/test/two")
	r.del("/a/b/test")
	rec.nextSet(t, "NODE_DELETED /a/b/test/one=", "NODE_DELETED /a/b/test/two=")
	rec.next(t, "NODE_DELETED /a/b/test=")
	_, err = r.c.Create(r.ctx, "/a/b/test/new", nil, 0, client.WithParents())
	require.NoError(t, err)
	rec.next(t, "NODE_CREATED /a/b/test=", "NODE_CREATED /a/b/test/new=")
	rec.none(t)
}

// TestPathChildrenCacheIssue27 is a port of TestPathChildrenCache.testIssue27:
// a child deleted, then made again, is a Deleted and a Created.
func TestPathChildrenCacheIssue27(t *testing.T) {
	r := newRig(t, nil)
	r.creates("/base", "/base/a", "/base/b", "/base/c")
	_, rec := startCache(t, r.c, "/base", cache.WithDepth(1))
	rec.next(t, "NODE_CREATED /base=base")
	rec.nextSet(t, "NODE_CREATED /base/a=a", "NODE_CREATED /base/b=b", "NODE_CREATED /base/c=c")
	rec.next(t, "INITIALIZED")
	r.del("/base/a")
	rec.next(t, "NODE_DELETED /base/a=a")
	r.create("/base/a", "a")
	rec.next(t, "NODE_CREATED /base/a=a")
	rec.none(t)
}

// TestPathChildrenCacheModes is a port of TestPathChildrenCache.testModes:
// with and without data, every node has its stat.
func TestPathChildrenCacheModes(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "")
	for _, withData := range []bool{false, true} {
		opts := []cache.Option{cache.WithDepth(1)}
		if !withData {
			opts = append(opts, cache.WithoutData())
		}
		ch, rec := startCache(t, r.c, "/test", opts...)
		rec.take(t, 2) // /test, Initialized
		r.create("/test/one", "one")
		r.create("/test/two", "two")
		rec.take(t, 2)
		for _, n := range ch.Children("/test") {
			require.NotZero(t, n.Stat.Czxid, n.Path)
			if withData {
				require.Equal(t, n.Path[len("/test/"):], string(n.Data))
			} else {
				require.Nil(t, n.Data)
			}
		}
		require.NoError(t, ch.Close(r.ctx))
		r.del("/test/one")
		r.del("/test/two")
	}
}

// TestCuratorCacheAfterInitialized is a port of
// TestCuratorCache.testAfterInitialized: once Initialized, Len and Get
// show the whole tree.
func TestCuratorCacheAfterInitialized(t *testing.T) {
	r := newRig(t, nil)
	r.creates("/test", "/test/one", "/test/one/two", "/test/one/two/three")
	ch, err := cache.New(r.c, "/test")
	require.NoError(t, err)
	require.NoError(t, ch.Start(r.ctx))
	defer ch.Close(r.ctx)
	require.True(t, itest.Closed(ch.Initialized()), "Initialized not closed after Start")
	require.Equal(t, 4, ch.Len())
	for _, p := range []string{"/test", "/test/one", "/test/one/two", "/test/one/two/three"} {
		_, ok := ch.Get(p)
		require.True(t, ok, p)
	}
}

// TestCuratorCacheListenerBuilder is a port of
// TestCuratorCache.testListenerBuilder: a subscriber sees the root's
// creation, change and deletion, each once, of its own type.
func TestCuratorCacheListenerBuilder(t *testing.T) {
	r := newRig(t, nil)
	ch, err := cache.New(r.c, "/test")
	require.NoError(t, err)
	got, stop := ch.Events()
	defer stop()
	require.NoError(t, ch.Start(r.ctx))
	defer ch.Close(r.ctx)
	require.Equal(t, cache.Initialized, itest.Await(t, got, 15*time.Second, "Initialized").Type)
	r.create("/test", "")
	ev := itest.Await(t, got, 15*time.Second, "created")
	require.Equal(t, cache.Created, ev.Type)
	r.set("/test", "new")
	ev = itest.Await(t, got, 15*time.Second, "changed")
	require.Equal(t, cache.Changed, ev.Type)
	require.Equal(t, "new", string(ev.Node.Data))
	require.Equal(t, "", string(ev.Old.Data))
	require.Equal(t, ev.Old.Stat.Czxid, ev.Node.Stat.Czxid)
	r.del("/test")
	ev = itest.Await(t, got, 15*time.Second, "deleted")
	require.Equal(t, cache.Deleted, ev.Type)
	require.Equal(t, "new", string(ev.Node.Data))
	itest.Pending(t, got, quiet, "another event")
}

// TestCuratorCacheClearOnClose is a port of TestCuratorCache.testClearOnClose:
// Close empties the view (Go has no DO_NOT_CLEAR_ON_CLOSE).
func TestCuratorCacheClearOnClose(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "foo")
	r.create("/test/bar", "bar")
	ch, rec := startCache(t, r.c, "/test")
	rec.take(t, 3)
	require.Equal(t, 2, ch.Len())
	require.NoError(t, ch.Close(r.ctx))
	require.Zero(t, ch.Len())
	require.Empty(t, ch.Nodes())
}
