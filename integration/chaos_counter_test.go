package integration

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
)

// TestChaosCounter (the counter): four participants, each its
// own client behind its own fault link, increment one recipes/counter
// counter every few milliseconds (promoted to a lock when their optimistic
// tries lose) under the seeded faults of TestChaosMutex plus dropped
// setData replies; then a calm phase in which each must increment again.
// Asserted once the calm phase is over, with the increments paused: the
// counter's value is exactly the increments that reported success plus
// those whose outcome was unknown (a *MaybeAppliedError) that applied, at
// most all of them, which the node's versions tell apart (each success
// made its own version; every other version is some maybe's); no node is
// left under the counter's path once it is deleted, the path is reaped,
// and no goroutine leaks. CHAOS_SEED reruns a seed.
func TestChaosCounter(t *testing.T) {
	w, err := chaos.WorkloadOf("counter")
	require.NoError(t, err)
	sc := w.Scenario()
	run := chaos.NewCounterRun()
	sc.Start, sc.Settle = run.Start, run.Settle
	runChaos(t, sc)
	tally := run.Tally()
	t.Logf("counter: %v", tally)
	require.Positive(t, tally.Successes)
	require.GreaterOrEqual(t, tally.Value, int64(tally.Successes))
	require.LessOrEqual(t, tally.Value, int64(tally.Successes+tally.Maybes))
}
