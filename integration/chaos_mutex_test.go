package integration

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// chaosSeed is CHAOS_SEED when set (to rerun a scenario), else a fresh seed.
func chaosSeed(t *testing.T) uint64 {
	if s := os.Getenv("CHAOS_SEED"); s != "" {
		seed, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "CHAOS_SEED")
		return seed
	}
	return uint64(time.Now().UnixNano())
}

// chaosCluster is the cluster of the chaos tests: their own, since they
// stop, kill and pause servers. CHAOS_SERVERS sets its size (default 1;
// the soak command, cmd/zkchaos, runs them on three).
func chaosCluster(t *testing.T) *zktest.Cluster {
	n := 1
	if s := os.Getenv("CHAOS_SERVERS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "CHAOS_SERVERS")
	}
	return zktest.ForTest(t, zktest.WithServers(n))
}

// runChaos fills in what every chaos test shares (seed, cluster,
// namespace, phases), runs sc and asserts every check, printing the
// summary line and, on failure, the timeline around each violation.
func runChaos(t *testing.T, sc chaos.Scenario) chaos.Result {
	noLeaks(t)
	sc.Seed = chaosSeed(t)
	t.Logf("CHAOS_SEED=%d", sc.Seed)
	if sc.Cluster == nil {
		sc.Cluster = chaosCluster(t)
	}
	sc.Namespace = namespace(t)
	if sc.Parts == 0 {
		sc.Parts = 4
	}
	if sc.Session == 0 {
		sc.Session = 1500 * time.Millisecond
	}
	if sc.Fault == 0 {
		sc.Fault = 16 * time.Second
	}
	if sc.Calm == 0 {
		sc.Calm = 6 * time.Second
	}
	r, tl, err := sc.Run(context.Background())
	require.NoError(t, err)
	t.Log(r.Summary(sc.Recipe))
	if mn, _ := chaos.MarginStats(r.Margins); len(r.Margins) > 0 && mn < 250*time.Millisecond {
		t.Log(r.Closest(tl, 3*time.Second))
	}
	if !r.OK() {
		t.Errorf("chaos %s failed (rerun with CHAOS_SEED=%d):\n%s", sc.Recipe, sc.Seed, r.Explain(tl, 2*time.Second, 3))
	}
	require.True(t, r.Linearizable, "porcupine: history not linearizable against the recipe's model")
	require.Empty(t, r.Overlaps, "overlapping holdings")
	require.Zero(t, r.Store.StaleAccepted, "stale writes accepted")
	require.Empty(t, r.BadMargins(), "margins <= 0")
	require.Empty(t, r.Orphans, "nodes left behind")
	require.Empty(t, r.Unreaped, "recipe paths not reaped after Close")
	require.Empty(t, r.CalmStuck, "participants without progress in the calm phase")
	require.Empty(t, r.Problems, "what the workers found wrong")
	require.Empty(t, r.Unsettled, "what the workload's Settle check found after the calm phase")
	require.NotZero(t, r.Grants, "no grants")
	return r
}

// TestChaosMutex (the mutex): four participants, each its own
// client behind its own fault link, contend for one mutex on a cluster of
// their own while the seeded engine cuts and blackholes links (shorter
// than, around and longer than the session timeout), drops replies to
// create, getChildren and delete, and pauses, kills, stops or restarts
// servers; then a calm phase. Asserted: porcupine finds the history
// linearizable against a one-holder model, no pair of holdings overlaps,
// the fenced store accepted no stale write, every margin from a holder's
// Lost() to the next grant is > 0, every participant was granted in the
// calm phase, no node is left under the lock path, the path is reaped
// after Close, and no goroutine leaks. CHAOS_SEED reruns a seed.
func TestChaosMutex(t *testing.T) { runWorkload(t, "mutex") }

// runWorkload runs the chaos workload of recipe with runChaos.
func runWorkload(t *testing.T, recipe string) chaos.Result {
	w, err := chaos.WorkloadOf(recipe)
	require.NoError(t, err)
	return runChaos(t, w.Scenario())
}
