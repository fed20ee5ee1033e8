package integration

import "testing"

// TestChaosSemaphore (the semaphore): four participants, each
// its own client behind its own fault link, take one lease (Acquire) or
// one or two at once (AcquireN) of a semaphore whose limit comes from a
// shared count, which participant 0 moves between 2 and 3 every few
// seconds, under the seeded faults of TestChaosMutex, then a calm phase.
// Each lease is a holding of its own. Asserted: porcupine finds the
// history linearizable against "at most 3 leases" (the higher limit: a
// lowered limit revokes nothing), no grant overlaps what others still
// believed they held under the limit in force (the limit last set a
// session timeout before, or any being set since: Capacity.LimitAt), every margin from a lease's Lost() to the next grant
// it would have blocked is > 0, every participant was granted in the calm
// phase, no node is left under the semaphore's path (leases or its locks
// mutex), the path is reaped after Close, and no goroutine leaks (the
// counts are closed). No fenced store: leases are shared, so their tokens
// order nothing. CHAOS_SEED reruns a seed.
func TestChaosSemaphore(t *testing.T) { runWorkload(t, "semaphore") }
