package integration

import "testing"

// TestChaosNode (the persistent node): four participants, each
// its own client behind its own fault link, keep one ephemeral node each
// with recipes/node (a plain, a protected and a protected sequential name
// among them) and set new data on it every few hundred milliseconds, under
// the seeded faults of TestChaosMutex (link cuts and blackholes around the
// session timeout, dropped create replies, server pauses, kills, stops and
// restarts); then a calm phase. Asserted once the calm phase is over, with
// the writes paused: every participant has exactly one node, owned by its
// client's live session, holding the data it last set, and no other node
// is there; every participant wrote in the calm phase; once the workers
// closed their nodes, nothing is left while the sessions live, the path is
// reaped after the clients close, and no goroutine leaks. CHAOS_SEED reruns
// a seed.
func TestChaosNode(t *testing.T) { runWorkload(t, "node") }
