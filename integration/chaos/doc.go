// Package chaos is zkrecipes' chaos suite: every recipe under random
// faults, checked by a linearizability checker, a fenced store and the
// nodes left behind. It is test code (it imports the harness); the tests
// in package integration (TestChaos*) and the soak command cmd/zkchaos
// run it.
//
// A Scenario runs one recipe's Workload (mutex, rwlock, semaphore, latch,
// run, node, cache, barrier, counter, multilock): participants, each with its own
// client behind its own fault link (faultlink), run the workload while the
// seeded Engine applies faults one at a time: link cuts and blackholes
// shorter than, around and longer than the session timeout; a dropped reply
// to create, getChildren or delete; a server paused, killed or stopped (in
// an ensemble: the holder's server, the leader or a follower) or every
// server restarted. Then a calm phase in which every participant must be
// granted again.
//
// Every acquire and release (term start and end) is recorded with its
// invoke and return instants on one process clock (History), and checked:
//
//   - porcupine (github.com/anishathalye/porcupine) against the recipe's
//     Capacity model: one holder (mutex, elections), one writer or many
//     readers with downgrades (rwlock), at most the limit (semaphore); an
//     acquire whose outcome is unknown is left open-ended;
//   - Overlaps: grants that did not fit beside what the other holders
//     still believed they held (a semaphore's limit followed over time);
//   - a fenced Store that accepts a write only with a token at least the
//     highest it has seen, counting refusals and stale writes accepted;
//   - Margins from a holder's loss signal (Lost(), the term's context) to
//     the next grant that needed its units: all must be > 0;
//   - nodes left under the recipe's paths once the workers stopped (while
//     their sessions live), the paths reaped once the clients closed, and
//     (in the tests) no goroutine leaked;
//   - the workload's own Settle check, if it has one, once the calm phase
//     is over (the node workload: one node per participant, owned by its
//     live session, with its latest data).
//
// The multilock workload takes random sets of three mutexes with
// mutex.Multi, each participant listing its set in its own order: each
// path is a kind of holding of its own and every check above runs per
// path (Capacity.PerKind); a deadlock would leave participants stuck in
// the calm phase.
//
// The barrier workload (recipes/barrier) holds nothing exclusive either:
// its participants go round after round through one double barrier, after
// a gate one of them sets and removes, and the log of their calls is
// checked once they stop (an Enter passed only at an instant all were in,
// no opening passed twice, no Leave returned before the others of its
// opening called Leave, no Wait passed a gate certainly set); what is wrong
// is a Problem.
//
// The cache workload holds nothing: each participant's cache must equal
// the server's tree (its view, and its events replayed) once the faults
// stop, which counts as its grant; what a worker finds wrong otherwise is
// a Problem (History.Problem, Result.Problems). ReadTree, Replay, Diff and
// TreeWriter serve the cache's own tests too.
//
// Result.Summary is the one-line summary of a scenario; Result.Explain the
// timeline (client states, faults, grants, losses, refused writes) around
// each violation. The seed reruns the faults (CHAOS_SEED in the tests,
// -seed in cmd/zkchaos); the workload's timing is not deterministic, so a
// rerun replays the same faults, not the same interleaving.
package chaos
