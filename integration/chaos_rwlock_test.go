package integration

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestChaosRWLock (the read/write lock): four participants, each
// its own client behind its own fault link and its own RWMutex handle,
// take at random the read lock, the write lock, or the write lock
// downgraded to a read (by RLock with the write holding's context, or by
// Downgrade) under the seeded faults of TestChaosMutex, then a calm phase.
// A writer weighs every unit of the capacity and a reader one, and a
// writer may take its own read lock before it lets the write go.
// Asserted: porcupine finds the history linearizable against "one writer
// or many readers" (with downgrades), no grant overlaps what others still
// believed they held, the fenced store (written by writers only; told of
// every grant) accepted no stale write, every margin from a Lost() to the
// next conflicting grant is > 0, every downgraded read kept its writer's
// token, every participant was granted in the calm phase, no node is left
// under the lock path, the path is reaped after Close, and no goroutine
// leaks. CHAOS_SEED reruns a seed.
func TestChaosRWLock(t *testing.T) {
	var workers []*chaos.RWLockWorker // Start runs on the test's goroutine, one participant after another
	runChaos(t, chaos.Scenario{
		Recipe:   "rwlock",
		Capacity: chaos.RWLockCapacity,
		Fenced:   true,
		Dirs:     []string{"/chaos/rwlock"},
		Start: func(_ context.Context, c *client.Client, p chaos.Part) (func(context.Context), error) {
			rw, err := rwlock.New(c, "/chaos/rwlock")
			if err != nil {
				return nil, err
			}
			w := &chaos.RWLockWorker{Part: p, RW: rw}
			workers = append(workers, w)
			return w.Run, nil
		},
	})
	downgrades := 0
	for _, w := range workers {
		downgrades += w.Downgrades()
		require.Zero(t, w.Mismatches(), "%s: downgraded reads whose token was not the writer's", w.Name())
	}
	t.Logf("downgrades=%d", downgrades)
}
