package versionit

import (
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestCacheWatchesOnTheServer counts, with the server's own four-letter
// word wchs, the watches a whole-subtree cache of 10,101 nodes (a root,
// 100 parents, 100 leaves under each) leaves on a ZooKeeper 3.8 server:
// one, its persistent recursive watch (the issue allows 2), where a watch
// per node would be over 10,000; and none once the cache is closed, while
// its client's session lives on.
func TestCacheWatchesOnTheServer(t *testing.T) {
	cl := zktest.ForTest(t, zktest.WithBackend(zktest.BackendLocal))
	ctx := itest.Ctx(t, 3*time.Minute)
	writer := itest.Connect(t, cl, itest.Opts{})
	reader := itest.Connect(t, cl, itest.Opts{})

	_, err := writer.Create(ctx, "/tree", nil, 0)
	require.NoError(t, err)
	for p := range 100 {
		parent := fmt.Sprintf("/tree/p%03d", p)
		ops := []any{&zk.CreateRequest{Path: parent, Acl: zk.WorldACL(zk.PermAll)}}
		for l := range 100 {
			ops = append(ops, &zk.CreateRequest{Path: fmt.Sprintf("%s/l%03d", parent, l), Data: []byte("x"), Acl: zk.WorldACL(zk.PermAll)})
		}
		_, err := writer.Multi(ctx, ops...)
		require.NoError(t, err)
	}
	before := serverWatches(t, ctx, cl.Addr(0))
	require.Zero(t, before, "watches on the server before the cache starts")

	ch, err := cache.New(reader, "/tree")
	require.NoError(t, err)
	require.NoError(t, ch.Start(ctx))
	require.Equal(t, 10101, ch.Len(), "nodes cached")
	loaded := serverWatches(t, ctx, cl.Addr(0))
	t.Logf("server's watches with the cache of %d nodes loaded: %d", ch.Len(), loaded)
	require.Equal(t, 1, loaded, "the cache's watches on the server (one persistent recursive watch)")

	require.NoError(t, ch.Close(ctx))
	itest.Eventually(t, 10*time.Second, "no watch left on the server after the cache's Close", func() bool {
		return serverWatches(t, ctx, cl.Addr(0)) == 0
	})
	ok, _, err := reader.Exists(ctx, "/tree")
	require.NoError(t, err, "the reader's session lives on after the cache's Close")
	require.True(t, ok)
}

var totalWatches = regexp.MustCompile(`Total watches:\s*(\d+)`)

// serverWatches asks the server at addr for its watch summary (wchs) and
// returns its total.
func serverWatches(t *testing.T, ctx context.Context, addr string) int {
	t.Helper()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = io.WriteString(conn, "wchs")
	require.NoError(t, err)
	out, err := io.ReadAll(io.LimitReader(conn, 64<<10))
	require.NoError(t, err)
	m := totalWatches.FindSubmatch(out)
	require.NotNil(t, m, "wchs answered %q", out)
	n, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	return n
}
