package integration

import "testing"

// TestChaosMultiLock (the multi-lock): four participants, each
// its own client behind its own fault link, take random sets of two or
// three of three mutexes with mutex.Multi, each listing its set in a
// random order, under the seeded faults of TestChaosMutex, then a calm
// phase. Each path of a set is a holding of its own, and every check runs
// per path: porcupine finds each path's history linearizable against a
// one-holder model, no two holdings of a path overlap, every margin from a
// lock's Lost() to the next grant of its path is > 0, every participant
// was granted in the calm phase (a deadlock would leave them stuck), no
// node is left under the paths, they are reaped after Close, and no
// goroutine leaks. No fenced store: tokens order the holders of one path,
// not of three. CHAOS_SEED reruns a seed.
func TestChaosMultiLock(t *testing.T) { runWorkload(t, "multilock") }
