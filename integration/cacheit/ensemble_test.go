package cacheit

import (
	"fmt"
	"math/rand/v2"
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

// TestCacheEnsembleServerLoss is a port of TestCuratorCacheEdges.testServerLoss
// and TestCuratorCacheConsistency.testConsistencyAfterSimulation on a
// 3-server ensemble: four clients, each with a cache of /test, write at
// random (from a random client each time) on four levels under /test,
// while the server the first cache is connected to is killed (its client
// reconnects to another, in the same session), started again, and then
// another server is killed. Afterwards every cache, and the events each
// delivered replayed on an empty map, equal the server's tree.
// CACHE_SEED sets the seed (printed).
func TestCacheEnsembleServerLoss(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	seed := envInt(t, "CACHE_SEED", uint64(time.Now().UnixNano()))
	t.Logf("CACHE_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	r := newRig(t, cl)
	r.create("/test", "")

	const n = 4
	var (
		links   []*faultlink.Link
		clients []*client.Client
		caches  []*cache.Cache
		recs    []*recorder
		writers []*chaos.TreeWriter
	)
	for i := range n {
		link := itest.NewLink(t)
		c := itest.Connect(t, cl, itest.Opts{NS: r.ns, Link: link, Timeout: 10 * time.Second})
		ch, rec := startCache(t, c, "/test")
		links, clients, caches, recs = append(links, link), append(clients, c), append(caches, ch), append(recs, rec)
		writers = append(writers, &chaos.TreeWriter{C: c, Root: "/test", Rand: rng, Tag: fmt.Sprintf("c%d-", i), Width: 4, Depth: 4})
	}
	serverOf := func(link *faultlink.Link) int {
		for i := range cl.Size() {
			if cl.Addr(i) == link.Remote() {
				return i
			}
		}
		require.FailNow(t, "no server for "+link.Remote())
		return -1
	}
	write := func(steps int) {
		for range steps {
			require.NoError(t, writers[rng.IntN(n)].Step(r.ctx))
		}
	}
	write(100)
	st := watchStates(t, clients[0])
	sid := clients[0].Session().ID()
	first := serverOf(links[0])
	t.Logf("killing server %d, the first cache's", first)
	require.NoError(t, cl.KillServer(r.ctx, first))
	write(60)
	st.await(t, client.StateReconnected, 30*time.Second)
	require.Equal(t, sid, clients[0].Session().ID(), "the first cache's client did not keep its session")
	require.NotEqual(t, first, serverOf(links[0]))
	write(60)
	require.NoError(t, cl.StartServer(r.ctx, first))
	second := (first + 1 + rng.IntN(2)) % 3
	t.Logf("killing server %d", second)
	require.NoError(t, cl.KillServer(r.ctx, second))
	write(60)
	require.NoError(t, cl.StartServer(r.ctx, second))

	var sizes []int
	for i := range n {
		tree := converge(t, caches[i], recs[i], r.c, "/test", 30*time.Second)
		sizes = append(sizes, len(tree))
	}
	t.Logf("seed=%d nodes=%v events=%d,%d,%d,%d", seed, sizes, recs[0].count(), recs[1].count(), recs[2].count(), recs[3].count())
}
