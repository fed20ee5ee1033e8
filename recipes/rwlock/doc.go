// Package rwlock is a distributed, reentrant read/write lock on ZooKeeper:
// the Go counterpart of Apache Curator's InterProcessReadWriteLock, wire
// compatible with it.
//
// Readers and writers queue as protected EPHEMERAL_SEQUENTIAL nodes
// "_c_<uuid>-__READ__<seq>" and "_c_<uuid>-__WRIT__<seq>" in one directory.
// A writer holds when its node is first of all; otherwise it watches the
// node just before its own. A reader holds when no writer node sorts before
// it; otherwise it watches the LAST writer before it (Curator watches the
// first, which wakes a reader once per writer ahead; the last wakes it once).
// Both use the shared queue core's fast handoff: when the node waited for
// was the only thing in the way, its deletion is the grant; and both also
// watch the node before the one they wait for, to list again early.
//
// # Downgrade and upgrade
//
// A handle that holds the write lock may take the read lock at once: like
// Curator it creates a plain EPHEMERAL read node carrying the writer's
// sequence number, which sorts at the writer's place, so after the write
// lock is released the handle still reads and later writers stay queued.
// The opposite, taking the write lock while holding only the read lock, can
// never succeed (the handle's own read node stands before any new write
// node), so Lock returns ErrUpgrade at once instead of deadlocking.
//
// Each side of a handle is reentrant and counts on its own; each holding has
// its own Lost channel and fencing Token, with the mutex's semantics (see
// package mutex). A handle is safe for concurrent use; its ownership is
// shared by every goroutine that uses it.
package rwlock
