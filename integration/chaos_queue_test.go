package integration

import (
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
)

// TestChaosQueue (the distributed queues): four participants,
// each its own client behind its own fault link, put items on one
// lock-safe recipes/queue Queue and consume them, each consumer recording
// every item it takes in the transaction that removes it
// (Item.CommitWith), under the seeded faults of TestChaosMutex (link cuts
// and blackholes around the session timeout, dropped create, getChildren
// and delete replies, server pauses, kills, stops and restarts) and
// consumer kills: an incarnation that dies mid-item, its session left to
// expire with the item's lock, and a fresh one in its place. Some handlers
// return nil after their ctx ended, whose removal must then be refused.
// Asserted once the calm phase is over, with the puts paused and the queue
// drained: item by item, every item whose Put succeeded was recorded
// exactly once, every one whose Put may have been applied at most once,
// none whose Put failed and nothing never put; every participant consumed
// in the calm phase; nothing is left under the queue's paths while the
// sessions live, the paths are reaped after the clients close, and no
// goroutine leaks. CHAOS_SEED reruns a seed.
func TestChaosQueue(t *testing.T) {
	w, err := chaos.WorkloadOf("queue")
	require.NoError(t, err)
	sc := w.Scenario()
	run := chaos.NewQueueRun()
	sc.Start, sc.Settle = run.Start, run.Settle
	if f := os.Getenv("CHAOS_QUEUE_LOG"); f != "" {
		out, err := os.Create(f)
		require.NoError(t, err)
		defer out.Close()
		sc.Logger = slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	runChaos(t, sc)
	tally := run.Tally()
	t.Logf("queue: %v", tally)
	require.Positive(t, tally.Consumed)
	require.Positive(t, tally.Kills, "no consumer was killed mid-item")
}
