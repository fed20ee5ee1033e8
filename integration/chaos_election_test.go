package integration

import "testing"

// TestChaosLatch (the leader latch): four participants, each its
// own client behind its own fault link, campaign with election.Latch on
// one path while the seeded engine cuts and blackholes links, drops
// replies and pauses, kills, stops or restarts servers; then a calm phase.
// Each awaits a term, writes to the fenced store with the term's token
// while the term's context lasts, then closes its latch or interrupts the
// term (and, after a term lost to a fault, sometimes awaits the same
// latch's next term). Asserted: porcupine finds the terms linearizable
// against a one-leader model, no two terms overlap (from grant to the end
// of the term's context), the fenced store accepted no stale write, every
// margin from a term's context ending by a fault to the next leader's
// grant is > 0, every participant led in the calm phase, no node is left
// under the latch's path, the path is reaped after Close, and no goroutine
// leaks. CHAOS_SEED reruns a seed.
func TestChaosLatch(t *testing.T) { runWorkload(t, "latch") }

// TestChaosRun (the leader loop): as TestChaosLatch, with each
// participant in one election.Run for the whole scenario, whose lead
// function writes to the fenced store while its context lasts and returns
// after a drawn hold (Run then deletes the node and campaigns again). The
// same checks: one leader at a time by porcupine and by overlaps, no stale
// write accepted, margins > 0, every participant led in the calm phase, no
// node left, the path reaped, no goroutine leaked.
func TestChaosRun(t *testing.T) { runWorkload(t, "run") }
