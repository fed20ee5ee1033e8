// Package counter is a distributed int64 counter on ZooKeeper: the Go
// counterpart of Apache Curator's DistributedAtomicLong, and wire compatible
// with it, so Go and Java processes can update one counter.
//
// # The node
//
// A counter is one PERSISTENT node whose data is the value as 8 bytes,
// big-endian two's complement (Curator's encoding): 7 is
// 00 00 00 00 00 00 00 07. A missing node and an empty one read as 0, as in
// Curator. The first write makes the node, and any missing parent as a
// container node. Data of any other length is not a counter: reads and
// updates report a *BadDataError (Curator fails on shorter data too, but
// reads the first 8 bytes of longer data); ForceSet and TrySet overwrite it.
//
// # Updates
//
// Add (and Increment, Decrement, Subtract) and TrySet are optimistic: read
// the value and its version, compute, and write with ZooKeeper's version
// check, so a write succeeds only if nobody wrote in between. A try that
// another writer beat is tried again as the retry policy allows
// (WithRetryPolicy; default the client's). If every try lost and a
// PromotedLock is configured, the update takes that lock (a recipes/mutex
// lock, wire compatible with Curator's InterProcessMutex, so Java updaters
// queue in the same place) and tries again under it, as Curator's
// PromotedToLock. CompareAndSet makes one try. Result reports what Curator's
// AtomicValue does: whether the update succeeded, the value before and
// after, and the tries (Stats). Updates of one handle run one at a time;
// goroutines sharing it queue in the process.
//
// A handle remembers the value and version of its last read or write and
// writes over that version directly, without a read first: one round trip
// per update while nobody else writes, where Curator always reads first.
// When another writer came between, the write fails on the version, and the
// handle reads and tries again at once; that costs no retry. After such a
// miss the handle reads first, as Curator does, so that processes taking
// turns waste no writes; as soon as a read finds the handle's own last
// version still there, it writes directly again. A try's read, decision
// and write run on one goroutine, so that nothing but the decision comes
// between the read's answer and the write. Under a tight loop of several
// writers the one that wrote last keeps winning, its version being always
// current: throughput goes up, fairness down. A PromotedLock queues the
// losers, but an optimistic writer does not wait for it.
//
// # Outcomes
//
// Every update returns a Result and an error:
//
//	nil                       written: Succeeded is true
//	nil, Succeeded false      CompareAndSet only: the value was not the expected one
//	ErrContention             other writers won every try (and the lock, if any, was not had in time)
//	ErrMaybeApplied           the write went out and its answer was lost: it may have been made
//	anything else             not written (ctx ended, a *BadDataError, zkrecipes.ErrClosed, a server's refusal)
//
// Only ErrMaybeApplied (a *MaybeAppliedError) leaves the counter possibly
// changed. Curator cannot tell this case apart: its client retries a
// setData whose connection dropped, and a retry that finds its own first
// write there fails on the version, which DistributedAtomicValue takes for
// another writer's: it reads the new value and adds again, so a lost reply
// can count an increment twice. Here a write is sent once
// and never retried blindly: after a lost reply the call returns a
// *MaybeAppliedError with the version the write required and the value it
// would have left. Each successful write makes exactly one new version of
// the node (Result.Version), so whoever knows all the writers' results can
// tell which of the unknown writes were made, and an exact count of events
// stays possible: retry what failed otherwise, and settle the unknown ones.
package counter
