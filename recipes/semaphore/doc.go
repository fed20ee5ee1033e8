// Package semaphore is a distributed counting semaphore on ZooKeeper: the Go
// counterpart of Apache Curator's InterProcessSemaphoreV2, and wire
// compatible with it, so Go and Java processes can share one semaphore path
// and together never hold more leases than the limit.
//
//	s, err := semaphore.New(c, "/licences/geo-api", 3)  // no I/O
//	lease, err := s.Acquire(ctx)                         // or TryAcquire, AcquireN
//	defer lease.Release(ctx)
//	<-lease.Lost()                                       // closes if the lease may be gone
//
// # Protocol
//
// Under the semaphore's path P, exactly as Curator lays it out:
//
//   - P/locks is a mutex (package mutex: protected "_c_<uuid>-lock-<seq>"
//     nodes) that serialises acquirers, so that only one of them waits at a
//     time;
//   - P/leases holds one protected EPHEMERAL_SEQUENTIAL node
//     "_c_<uuid>-lease-<seq>" per lease held (and per lease the current
//     acquirer is waiting for).
//
// An acquire takes the locks mutex, creates its lease node, then lists
// P/leases with a watch: when there are at most maxLeases children (all of
// them count, as in Curator) it holds; otherwise it waits for the children
// to change, still holding the mutex, and lists again. Then it releases the
// mutex.
//
// A grant is only made on a listing taken while the connection stayed up.
// The first listing is sent while the lease node's create is still in
// flight (ZooKeeper answers a session's requests in order, so it then costs
// no round trip of its own; one that lacks the new node is thrown away), and
// the mutex's release is not waited for before the lease is returned: it
// runs in the background, still as a guaranteed delete.
//
// # The fast path
//
// While the semaphore has room, Acquire and TryAcquire of one lease skip
// the mutex: they create the lease node and list leases/ in one round trip,
// and hold when that listing (taken after the create) shows at most the
// limit's number of nodes. That is the very rule by which Curator's
// protocol grants, and it is what makes a grant safe: of any set of holders,
// the last to list saw all the others' nodes, so there are never more than
// the limit of them. The mutex only keeps acquirers from WAITING side by
// side (two waiting nodes could keep each other out); the fast path never
// waits: when its listing shows no room it deletes its node and takes the
// mutex, as Curator does, and keeps to that until a grant shows room to
// spare. It cannot overtake an acquirer that waits for room, whose lease
// node it counts. The wire is Curator's all the same: Java processes see
// lease nodes only, and at most wait a moment longer for one about to go.
// An uncontended acquire is one round trip instead of Curator's six (see
// the repository's docs/benchmarks.md).
//
// # The limit
//
// New takes a constant limit, each handle's own setting: as in Curator,
// nothing on the server checks that every handle on a path uses the same,
// unless WithLimitCheck asks for it (the limit is then written on the
// semaphore's node, and a handle with another one fails with ErrMaxConflict,
// as kazoo's and Consul's semaphores do). NewWithCount takes the limit from
// a shared.Count instead (Curator's SharedCountReader), so it can change at
// run time: a raised count wakes blocked acquirers at once, a lowered one
// revokes nothing but makes newcomers wait until the holders are below it.
//
// # Several leases at once
//
// AcquireN(ctx, n) creates all n lease nodes inside ONE hold of the locks
// mutex and waits until all n fit. Curator's acquire(qty) instead takes and
// releases the mutex once per lease, so two callers can interleave: with a
// limit of 4, two clients each asking for 3 can end up holding 2 each, and
// both wait, holding what they have, until they time out. Here the second
// caller cannot start before the first has all it asked for, so both finish,
// one after the other. n above a constant limit would wait forever: it fails
// at once (ErrTooManyLeases).
//
// # Leases
//
// A Lease is released once, with Release (a second Release returns
// zkrecipes.ErrNotHeld); its node is deleted with a guaranteed delete. Lost closes as
// soon as holding the lease can no longer be guaranteed: by default when the
// connection is Suspended (the client's timing guarantees that this comes at
// least a third of the session timeout before another process can be granted
// the lease; see packages client and mutex), with WithLostOnSessionLossOnly
// only when the session is lost; and always when the lease node is deleted,
// on Release and when the client closes. Token is the lease node's creation
// zxid, a fencing token.
//
// # Semaphore mutex
//
// NewMutex gives Curator's InterProcessSemaphoreMutex: a semaphore of one
// lease on the same layout, wire compatible with the Java class, and not
// reentrant (a second Lock of one handle waits for its Unlock). It is a
// mutex.Locker.
//
// # Failures
//
// Every way out of an acquire that does not end in holding (a cancelled
// context, TryAcquire finding no lease free, a lost session, an error)
// deletes the lease nodes it made and releases the locks mutex, so a failed
// acquire never leaves the semaphore short of a lease. A waiter whose session
// is lost, or whose lease node is deleted, tries again under the client's
// retry policy: it held nothing, so its caller need not know. A holder never
// re-acquires silently: its Lost channel closes.
package semaphore
