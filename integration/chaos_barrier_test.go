package integration

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
)

// TestChaosBarrier (the barriers): four participants, each its
// own client behind its own fault link, go round after round through one
// double barrier of four (recipes/barrier.Double: Enter, a short stay,
// Leave; a failed Enter is retried) after waiting on a gate
// (recipes/barrier.Barrier) that participant p0 sets and removes, under
// the seeded faults of TestChaosMutex (link cuts and blackholes around the
// session timeout, dropped create, getChildren and delete replies, server
// pauses, kills, stops and restarts); then a calm phase. Asserted from the
// calls' log on one clock: no Enter passed unless every other participant
// was in the barrier between its first try and its return; nobody passed
// one opening twice; no Leave returned before every other participant of
// its opening had called Leave (or lost its node to an expired session);
// no gate Wait returned while the gate was certainly set; every
// participant passed the barrier in the calm phase and completed a round
// after the fault phase; once the workers closed their barriers nothing is
// left under /chaos/barrier (member nodes, the ready node, the gate) while
// the sessions live, the path is reaped, and no goroutine leaks.
// CHAOS_SEED reruns a seed.
func TestChaosBarrier(t *testing.T) {
	w, err := chaos.WorkloadOf("barrier")
	require.NoError(t, err)
	sc := w.Scenario()
	run := new(chaos.BarrierRun)
	sc.Start = run.Start
	runChaos(t, sc)
	st := run.Stats()
	t.Logf("barrier: %v", st)
	require.NotZero(t, st.Rounds, "no round completed")
	require.NotZero(t, st.Waits, "no gate Wait passed")
	require.NotZero(t, st.Sets, "the gate was never set")
}
