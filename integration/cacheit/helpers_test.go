package cacheit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// rig is what most tests share: a client in a namespace of the test's own
// on the shared server, and a context for its calls.
type rig struct {
	t   *testing.T
	ns  string
	c   *client.Client
	ctx context.Context
	// link is the fault link of a second client, the cache's, when the
	// test has one (see linked).
	link *faultlink.Link
}

// newRig connects a client in a fresh namespace of cl, or of the shared
// server when cl is nil, and then checks for leaked goroutines. (A test
// with a cluster of its own calls itest.NoLeaks before starting it: the
// cluster's goroutines end when it closes, after the test's other
// cleanups.)
func newRig(t *testing.T, cl *zktest.Cluster) *rig {
	if cl == nil {
		itest.NoLeaks(t)
		cl = shared
	}
	ns := itest.Namespace(t)
	return &rig{t: t, ns: ns, c: itest.Connect(t, cl, itest.Opts{NS: ns}), ctx: itest.Ctx(t, 2*time.Minute)}
}

// create makes p with data (its parent must exist).
func (r *rig) create(p, data string) {
	r.t.Helper()
	_, err := r.c.Create(r.ctx, p, []byte(data), 0)
	require.NoError(r.t, err, "create %s", p)
}

// creates makes each path, with its last segment as data.
func (r *rig) creates(paths ...string) {
	r.t.Helper()
	for _, p := range paths {
		r.create(p, p[strings.LastIndexByte(p, '/')+1:])
	}
}

// set writes p's data.
func (r *rig) set(p, data string) {
	r.t.Helper()
	_, err := r.c.Set(r.ctx, p, []byte(data), -1)
	require.NoError(r.t, err, "set %s", p)
}

// del deletes p.
func (r *rig) del(p string) {
	r.t.Helper()
	require.NoError(r.t, r.c.Delete(r.ctx, p, -1), "delete %s", p)
}

// startCache makes a cache of path on c, records its events from the
// start, starts it (Start returns after the first full load: Initialized is
// closed) and closes it at cleanup.
func startCache(t *testing.T, c *client.Client, path string, opts ...cache.Option) (*cache.Cache, *recorder) {
	t.Helper()
	ch, err := cache.New(c, path, opts...)
	require.NoError(t, err)
	rec := record(t, ch)
	t.Cleanup(func() { _ = ch.Close(context.Background()) })
	require.NoError(t, ch.Start(itest.Ctx(t, 30*time.Second)))
	require.True(t, itest.Closed(ch.Initialized()), "Start returned before Initialized")
	return ch, rec
}

// startCacheWaiting is startCache for a cache that cannot load yet (no
// server, no connection): its Start, given a short ctx, returns ctx's error,
// and the cache goes on loading in the background.
func startCacheWaiting(t *testing.T, c *client.Client, path string, opts ...cache.Option) (*cache.Cache, *recorder) {
	t.Helper()
	ch, err := cache.New(c, path, opts...)
	require.NoError(t, err)
	rec := record(t, ch)
	t.Cleanup(func() { _ = ch.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = ch.Start(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded, "Start before the cache can load")
	require.False(t, itest.Closed(ch.Initialized()), "Initialized before the cache could load")
	return ch, rec
}

// names are the names of nodes, in order.
func names(nodes []cache.Node) []string {
	out := []string{}
	for _, n := range nodes {
		out = append(out, n.Path[strings.LastIndexByte(n.Path, '/')+1:])
	}
	return out
}

// data is a cached node's data, failing the test when the cache lacks it.
func data(t *testing.T, ch *cache.Cache, p string) string {
	t.Helper()
	n, ok := ch.Get(p)
	require.True(t, ok, "the cache has no %s", p)
	return string(n.Data)
}

// converge waits (up to d) until the cache's view, the view its recorded
// events give, and the server's tree under root (read with reader) are
// the same, and fails with their differences otherwise.
func converge(t *testing.T, ch *cache.Cache, rec *recorder, reader *client.Client, root string, d time.Duration) chaos.Tree {
	t.Helper()
	ctx := itest.Ctx(t, d+10*time.Second)
	deadline := time.Now().Add(d)
	for {
		want, err := chaos.ReadTree(ctx, reader, root)
		require.NoError(t, err)
		view := chaos.Diff(want, chaos.NodesTree(ch.Nodes()), 20)
		replay := chaos.Diff(want, rec.tree(), 20)
		if len(view) == 0 && len(replay) == 0 {
			return want
		}
		if time.Now().After(deadline) {
			require.FailNowf(t, "the cache does not match the server",
				"after %v:\ncache view vs server:\n  %s\nreplayed events vs server:\n  %s",
				d, strings.Join(view, "\n  "), strings.Join(replay, "\n  "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// states records a client's state changes.
type states struct{ ch <-chan client.StateChange }

// watchStates subscribes to c's state changes (cancelled at cleanup).
func watchStates(t *testing.T, c *client.Client) *states {
	ch, cancel := c.Subscribe()
	t.Cleanup(cancel)
	return &states{ch: ch}
}

// await waits (up to d) for the state want, skipping the others.
func (s *states) await(t *testing.T, want client.State, d time.Duration) client.StateChange {
	t.Helper()
	return itest.WaitState(t, s.ch, want, 0, d)
}

// expire makes the client behind link lose its session: the link is cut
// until the client gives the session up (a whole session timeout without
// a connection), then restored; it returns once the client has a new
// session. While the link is cut, during runs (the changes the test makes
// meanwhile).
func expire(t *testing.T, link *faultlink.Link, st *states, during func()) {
	t.Helper()
	link.Cut()
	if during != nil {
		during()
	}
	st.await(t, client.StateLost, 30*time.Second)
	link.Restore()
	st.await(t, client.StateReconnected, 30*time.Second)
}

// reads counts the reads and listings the client behind link sent. Exists
// requests are left out: the cache sends them only for a missing root, and
// the client sends its own on each new session (its sentinel watch).
func reads(link *faultlink.Link) int64 {
	return link.Requests(faultlink.OpGetData) + link.Requests(faultlink.OpGetChildren2) +
		link.Requests(faultlink.OpGetChildren)
}

// writes counts the requests that change something that the client behind
// link sent.
func writes(link *faultlink.Link) int64 {
	var n int64
	for _, op := range []int32{faultlink.OpCreate, faultlink.OpCreate2, faultlink.OpCreateContainer,
		faultlink.OpCreateTTL, faultlink.OpDelete, faultlink.OpSetData, faultlink.OpMulti} {
		n += link.Requests(op)
	}
	return n
}
