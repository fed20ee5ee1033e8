package integration

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
)

// TestChaosCache (the cache): four participants, each its own
// client behind its own fault link, each with a cache of its own subtree
// (/chaos/cache/p<i>) that its neighbour writes at random (creates,
// writes, deletes and re-creates on three levels, ephemeral leaves, the
// subtree's root deleted and made again) while the seeded engine cuts and
// blackholes links, drops replies (getChildren among them), and pauses,
// kills, stops or restarts servers; then a calm phase. Asserted: in the
// calm phase every cache's view and the view its events give, replayed on
// an empty map, equal the server's tree (its "grant"); at the end they
// still do, and every event fit the ones before it (no problem recorded);
// once the caches are closed and the subtrees deleted nothing is left
// under /chaos/cache (the caches wrote nothing) and the path is reaped; no
// goroutine leaks. CHAOS_SEED reruns a seed.
func TestChaosCache(t *testing.T) {
	w, err := chaos.WorkloadOf("cache")
	require.NoError(t, err)
	sc := w.Scenario()
	var workers []*chaos.CacheWorker // Start runs on the test's goroutine, one participant after another
	sc.Start = func(ctx context.Context, c *client.Client, p chaos.Part) (func(context.Context), error) {
		cw, err := chaos.StartCacheWorker(ctx, c, p)
		if err != nil {
			return nil, err
		}
		workers = append(workers, cw)
		return cw.Run, nil
	}
	runChaos(t, sc)
	require.Len(t, workers, 4)
	for _, cw := range workers {
		writes, events := cw.Stats()
		t.Logf("%s: writer %v; its cache's events %d", cw.Name(), writes, events)
		require.NotZero(t, events, "%s: its cache delivered no event", cw.Name())
	}
}
