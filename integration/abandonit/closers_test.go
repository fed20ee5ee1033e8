package abandonit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	sharedv "github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// TestCachePerNodeCloses: a cache forced to keep a watch per node
// (WithWatchPerNode, as on a server without addWatch) over a root and 3
// children holds a watch per node on the server while it runs, and none
// once closed, while its client's session lives on.
func TestCachePerNodeCloses(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	writer := itest.Connect(t, shared, itest.Opts{NS: ns})
	reader := itest.Connect(t, shared, itest.Opts{NS: ns})
	for _, p := range []string{"/tree", "/tree/a", "/tree/b", "/tree/c"} {
		_, err := writer.Create(ctx, p, []byte("x"), 0)
		require.NoError(t, err)
	}
	base := steady(t, ctx, shared, reader)

	ch, err := cache.New(reader, "/tree", cache.WithWatchPerNode())
	require.NoError(t, err)
	require.NoError(t, ch.Start(ctx))
	<-ch.Initialized()
	require.Equal(t, 4, ch.Len(), "nodes cached")
	var loaded counts
	itest.Eventually(t, readyWithin, "a watch per node on the server", func() bool {
		loaded = look(t, ctx, shared, reader)
		return loaded.server-base.server >= 4
	})
	t.Logf("cache per node: baseline %v; loaded: %v (server +%d)", base, loaded, loaded.server-base.server)

	require.NoError(t, ch.Close(ctx))
	after := settle(t, ctx, shared, reader, "the cache's watches gone after its Close", func(c counts) bool {
		return c.server == base.server && c.watches == 0 && c.waiting == 0 && c.goroutines <= base.goroutines
	})
	t.Logf("cache per node: after Close: %v", after)
	ok, _, err := reader.Exists(ctx, "/tree")
	require.NoError(t, err, "the reader's session lives on after the cache's Close")
	require.True(t, ok)
}

// TestWatchersClose: the recipes that watch for as long as they are
// started (shared.Count and shared.Bytes, node.Node, group.Member) leave
// no watch on the server, no one-shot watch in the client and no
// goroutine once closed; the kept nodes are deleted, the shared values
// stay.
func TestWatchersClose(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	for _, p := range []string{"/count", "/bytes", "/kept", "/group"} {
		_, err := c.Create(ctx, p, nil, 0)
		require.NoError(t, err)
	}
	base := steady(t, ctx, shared, c)

	const n = 100
	const members = 10
	var closers []func(context.Context) error
	for i := range n {
		cnt, err := sharedv.NewCount(c, fmt.Sprintf("/count/%03d", i), 0)
		require.NoError(t, err)
		require.NoError(t, cnt.Start(ctx))
		closers = append(closers, func(context.Context) error { return cnt.Close() })
		b, err := sharedv.NewBytes(c, fmt.Sprintf("/bytes/%03d", i), []byte("seed"))
		require.NoError(t, err)
		require.NoError(t, b.Start(ctx))
		closers = append(closers, func(context.Context) error { return b.Close() })
		nd, err := node.New(c, fmt.Sprintf("/kept/%03d", i), []byte("kept"), node.WithMode(node.Ephemeral))
		require.NoError(t, err)
		require.NoError(t, nd.Start(ctx))
		closers = append(closers, nd.Close)
	}
	for i := range members {
		m, err := group.New(c, "/group", fmt.Sprintf("m%02d", i), nil)
		require.NoError(t, err)
		require.NoError(t, m.Start(ctx))
		closers = append(closers, m.Close)
	}
	var peak counts
	itest.Eventually(t, readyWithin, "a watch per count, value and kept node on the server", func() bool {
		peak = look(t, ctx, shared, c)
		return peak.server-base.server >= 3*n && peak.waiting >= 3*n
	})
	t.Logf("watchers: %d counts, %d values, %d kept nodes, %d group members; baseline %v; started: %v (server +%d)",
		n, n, n, members, base, peak, peak.server-base.server)

	var errs []error
	for _, cl := range closers {
		errs = append(errs, cl(ctx))
	}
	require.NoError(t, errors.Join(errs...), "Close")
	after := settle(t, ctx, shared, c, "the watchers' watches gone after their Close", func(cn counts) bool {
		return cn.server == base.server && cn.watches == 0 && cn.waiting == 0 && cn.goroutines <= base.goroutines
	})
	t.Logf("watchers: after Close: %v", after)
	require.Empty(t, itest.Children(t, c, "/kept"), "kept nodes left after Close")
	require.Empty(t, itest.Children(t, c, "/group"), "group members' nodes left after Close")
	require.Len(t, itest.Children(t, c, "/count"), n, "the counts stay")
}
