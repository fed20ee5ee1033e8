package cacheit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// TestCacheTour: the load, then a write, a create and a delete at once;
// Get, Children and the replayed events agree.
func TestCacheTour(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	for _, p := range []string{"/t", "/t/a", "/t/a/x", "/t/b"} {
		_, err := c.Create(ctx, p, []byte(p[len(p)-1:]), 0)
		require.NoError(t, err)
	}
	ch, err := cache.New(c, "/t")
	require.NoError(t, err)
	rec := record(t, ch)
	require.NoError(t, ch.Start(ctx))
	defer ch.Close(ctx)
	got := rec.waitN(t, 5, 5*time.Second)
	require.Len(t, got, 5)
	require.Equal(t, "NODE_CREATED /t=t", got[0])
	require.Equal(t, "INITIALIZED", got[4])
	require.ElementsMatch(t, []string{"NODE_CREATED /t/a=a", "NODE_CREATED /t/b=b", "NODE_CREATED /t/a/x=x"}, got[1:4])

	_, err = c.Set(ctx, "/t/a", []byte("a2"), -1)
	require.NoError(t, err)
	_, err = c.Create(ctx, "/t/c", []byte("c"), 0)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, "/t/a/x", -1))
	// Each node's events come in order; the reads that show the changes of
	// different nodes answer in any order, so across nodes the events may
	// come in another order than the writes.
	after := rec.waitN(t, len(got)+3, 10*time.Second)
	require.ElementsMatch(t, []string{"NODE_CHANGED /t/a=a2", "NODE_CREATED /t/c=c", "NODE_DELETED /t/a/x=x"}, after[len(got):])
	n, ok := ch.Get("/t/a")
	require.True(t, ok)
	require.Equal(t, "a2", string(n.Data))
	kids := ch.Children("/t")
	require.Len(t, kids, 3)
	require.Equal(t, map[string]string{"/t": "t", "/t/a": "a2", "/t/b": "b", "/t/c": "c"}, rec.replayed())
	require.NoError(t, ch.Close(ctx))
}
