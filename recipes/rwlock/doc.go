// Package rwlock is a distributed read/write lock on ZooKeeper: the Go
// counterpart of Apache Curator's InterProcessReadWriteLock, wire compatible
// with it.
//
// Readers and writers queue as protected EPHEMERAL_SEQUENTIAL nodes
// "_c_<uuid>-__READ__<seq>" and "_c_<uuid>-__WRIT__<seq>" in one directory.
// A writer holds when its node is first of all; otherwise it watches the
// node just before its own. A reader holds when no writer node sorts before
// it; otherwise it watches the LAST writer before it (Curator watches the
// first, which wakes a reader once per writer ahead; the last wakes it
// once). Both hand off fast, as the queue core's package doc explains.
//
// # Handles are shared like sync.RWMutex
//
// Each side of an RWMutex is a *mutex.Mutex. Goroutines that share one
// RWMutex behave as with sync.RWMutex: readers share the handle's one read
// node, the handle's writer waits for them in the process, readers wait for
// the handle's writer, and a waiting writer holds new readers back. Each
// holding has its own Lost channel, Token and Context, with the mutex's
// semantics (see package mutex).
//
// # Downgrade, reentrancy and upgrade
//
// Downgrade turns the write holding into a read holding at the writer's
// place in the queue: like Curator it creates a plain EPHEMERAL read node
// carrying the writer's sequence number, then releases the write node, so
// later writers stay queued behind the reader. The read holding continues
// the write holding, so it keeps the writer's fencing token: tokens still
// grow in grant order.
//
// Curator ties reentrancy to a Java thread; here it travels in a context
// (see mutex.Mutex.Context). With the write holding's context, RLock takes
// the read lock at once beside the write lock (Curator's spelling of a
// downgrade) and Lock reenters; with the read holding's context, RLock
// reenters and Lock fails at once with zkrecipes.ErrUpgrade, since the handle's own
// read node stands before any new write node and that upgrade would wait
// forever.
package rwlock
