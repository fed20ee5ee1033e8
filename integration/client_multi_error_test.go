package integration

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestMultiErrorNamesOp: a transaction refused because of its op at index
// k fails with a *client.OpError naming k, the op's kind and its path as
// given (relative to the namespace); it still matches the server's answer
// (errors.Is(err, zk.ErrNoNode)), and nothing of it was applied.
func TestMultiErrorNamesOp(t *testing.T) {
	noLeaks(t)
	c := connect(t, clientOpts{ns: namespace(t)})
	ctx := ctxT(t, 30*time.Second)
	_, err := c.Create(ctx, "/m/a", []byte("a"), 0, client.WithParents())
	require.NoError(t, err)

	cases := []struct {
		name  string
		ops   []any
		index int
		kind  string
		path  string
		is    error
	}{
		{"create under a missing parent at 2", []any{
			&zk.CreateRequest{Path: "/m/b"},
			&zk.SetDataRequest{Path: "/m/a", Data: []byte("a2"), Version: -1},
			&zk.CreateRequest{Path: "/m/missing/x"},
			&zk.DeleteRequest{Path: "/m/a", Version: -1},
		}, 2, "create", "/m/missing/x", zk.ErrNoNode},
		{"check at 1", []any{
			&zk.CreateRequest{Path: "/m/c"},
			&zk.CheckVersionRequest{Path: "/m/a", Version: 7},
		}, 1, "check", "/m/a", zk.ErrBadVersion},
		{"delete at 0", []any{
			&zk.DeleteRequest{Path: "/m/none", Version: -1},
			&zk.CreateRequest{Path: "/m/d"},
		}, 0, "delete", "/m/none", zk.ErrNoNode},
		{"set at 1", []any{
			&zk.CreateRequest{Path: "/m/e"},
			&zk.SetDataRequest{Path: "/m/gone", Data: []byte("x"), Version: -1},
		}, 1, "set", "/m/gone", zk.ErrNoNode},
	}
	for _, tc := range cases {
		_, err := c.Multi(ctx, tc.ops...)
		require.Error(t, err, tc.name)
		require.ErrorIs(t, err, tc.is, tc.name)
		require.Contains(t, err.Error(), "op "+string(rune('0'+tc.index)), "%s: %v", tc.name, err)
		require.Contains(t, err.Error(), tc.path, "%s: %v", tc.name, err)
		var oe *client.OpError
		require.ErrorAs(t, err, &oe, tc.name)
		require.Equal(t, tc.index, oe.Index, tc.name)
		require.Equal(t, tc.kind, oe.Op, tc.name)
		require.Equal(t, tc.path, oe.Path, "%s: the path as given, not under the namespace", tc.name)
		require.ErrorIs(t, oe.Err, tc.is, tc.name)
	}
	require.Equal(t, []string{"a"}, children(t, c, "/m"), "no transaction applied anything")
	data, _, err := c.Get(ctx, "/m/a")
	require.NoError(t, err)
	require.Equal(t, "a", string(data))
}
