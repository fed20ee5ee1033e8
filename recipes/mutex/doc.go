// Package mutex is a distributed, reentrant mutual-exclusion lock on
// ZooKeeper: the Go counterpart of Apache Curator's InterProcessMutex, and
// wire compatible with it, so Go and Java processes can share one lock path.
//
// Each Lock creates one protected EPHEMERAL_SEQUENTIAL node
// "_c_<uuid>-lock-<seq>" under the lock's path. The first node in sequence
// order holds the lock; every other contender waits for the node just before
// its own. When that node was the holder, its deletion is itself the grant:
// the waiter holds without listing the directory again. To make that the
// common case, a waiter also watches the node before the one it waits for,
// and lists the directory again when that one goes, while the new holder
// works. So a release wakes at most two waiters, however many wait: no herd.
//
// # Knowing when the lock is gone
//
// A lock held over a network can be lost without the holder doing anything:
// its session can expire. Lost returns a channel that closes as soon as
// ownership can no longer be guaranteed. By default that is the moment the
// connection is Suspended, which is safe: go-zookeeper notices a silent
// connection within two thirds of the session timeout, and the server
// expires a session only after the whole timeout, so the server cannot have
// given the lock to anyone else yet when Lost closes. With
// WithLostOnSessionLossOnly, Lost closes only when the session is Lost
// (expired, or given up by the client after a whole timeout without a
// connection): fewer false alarms, but another process may already hold the
// lock when it closes. Lost also closes if the node is deleted under the
// holder, on Unlock, and when the client closes.
//
// A holder should also hand Token, the lock node's creation zxid, to the
// resource it protects: tokens grow strictly across successive holders of a
// path, so the resource can refuse a write from a holder that was paused
// past the loss of its lock.
//
// # Handles
//
// A *Mutex is one handle. It is reentrant: Lock on a handle that holds adds
// one to a count, and the node is deleted when Unlock brings the count back
// to zero. Two handles always contend, even in one process on one client. A
// handle is safe for concurrent use, but its ownership is shared by every
// goroutine using it (Go has no thread identity to tie it to): give each
// goroutine that must exclude the others its own handle.
//
// Every way out of Lock that does not end in holding (a cancelled context, a
// lost session, an error, a closed client) deletes the node it created.
package mutex
