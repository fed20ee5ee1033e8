package versionit

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestCacheOnEachVersion runs one cache scenario on a server without
// addWatch (3.4.13) and on 3.9: the client's AddWatch says
// ErrWatchUnsupported on the first, so the whole-subtree cache, which takes
// one persistent recursive watch where it can, keeps a watch per node there.
// Both give the same events: the first load, a change, a node created, one
// deleted, and a change made while the cache's connection was cut (within
// its session: on 3.4 the client sets its watches again with SetWatches,
// not SetWatches2, and the server fires the one that changed).
func TestCacheOnEachVersion(t *testing.T) {
	for _, v := range []string{zktest.Version34, zktest.Version39} {
		t.Run(v, func(t *testing.T) { testCache(t, v) })
	}
}

func testCache(t *testing.T, version string) {
	cl := zktest.ForTest(t, zktest.WithBackend(zktest.BackendLocal), zktest.WithVersion(version))
	ctx := itest.Ctx(t, 2*time.Minute)
	got, err := cl.ServerVersion(ctx, 0)
	require.NoError(t, err)
	require.Equal(t, version, got, "the server's srvr version")

	writer := itest.Connect(t, cl, itest.Opts{})
	link := itest.NewLink(t)
	reader := itest.Connect(t, cl, itest.Opts{Link: link, Timeout: 4 * time.Second})
	states, unsubscribe := reader.Subscribe()
	t.Cleanup(unsubscribe)

	w, err := reader.AddWatch(ctx, "/", true)
	if version == zktest.Version34 {
		require.ErrorIs(t, err, client.ErrWatchUnsupported, "AddWatch on a server without addWatch")
	} else {
		require.NoError(t, err, "AddWatch on %s", version)
		require.NoError(t, w.Remove(ctx))
	}

	for _, p := range []string{"/r", "/r/a", "/r/b", "/r/a/x"} {
		_, err := writer.Create(ctx, p, []byte("1"), 0)
		require.NoError(t, err)
	}
	ch, err := cache.New(reader, "/r")
	require.NoError(t, err)
	events, cancel := ch.Events()
	t.Cleanup(cancel)
	require.NoError(t, ch.Start(ctx))
	t.Cleanup(func() { _ = ch.Close(context.Background()) })

	var load []string
	for range 4 {
		load = append(load, next(t, ctx, events))
	}
	sort.Strings(load)
	require.Equal(t, []string{"NODE_CREATED /r", "NODE_CREATED /r/a", "NODE_CREATED /r/a/x", "NODE_CREATED /r/b"}, load)
	require.Equal(t, "INITIALIZED", next(t, ctx, events))

	_, err = writer.Set(ctx, "/r/a", []byte("2"), -1)
	require.NoError(t, err)
	require.Equal(t, "NODE_CHANGED /r/a", next(t, ctx, events))
	_, err = writer.Create(ctx, "/r/b/y", nil, 0)
	require.NoError(t, err)
	require.Equal(t, "NODE_CREATED /r/b/y", next(t, ctx, events))
	require.NoError(t, writer.Delete(ctx, "/r/a/x", -1))
	require.Equal(t, "NODE_DELETED /r/a/x", next(t, ctx, events))

	link.Cut()
	itest.WaitState(t, states, client.StateSuspended, 0, 10*time.Second)
	_, err = writer.Set(ctx, "/r/b", []byte("3"), -1)
	require.NoError(t, err)
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, 0, 10*time.Second)
	require.Equal(t, "NODE_CHANGED /r/b", next(t, ctx, events))
	n, ok := ch.Get("/r/b")
	require.True(t, ok)
	require.Equal(t, "3", string(n.Data))
}

// next returns the cache's next event as "TYPE path" (INITIALIZED alone).
func next(t *testing.T, ctx context.Context, events <-chan cache.Event) string {
	t.Helper()
	select {
	case ev, ok := <-events:
		require.True(t, ok, "events closed")
		if ev.Type == cache.Initialized {
			return ev.Type.String()
		}
		return fmt.Sprintf("%v %s", ev.Type, ev.Node.Path)
	case <-ctx.Done():
		require.FailNow(t, "no cache event", "%v", ctx.Err())
		return ""
	}
}
