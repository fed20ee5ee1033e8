// Package mutex is a distributed mutual-exclusion lock on ZooKeeper: the Go
// counterpart of Apache Curator's InterProcessMutex, and wire compatible
// with it, so Go and Java processes can share one lock path.
//
// Each Lock creates one protected EPHEMERAL_SEQUENTIAL node
// "_c_<uuid>-lock-<seq>" under the lock's path. The first node in sequence
// order holds the lock; every other contender waits for the node just before
// its own, so a release wakes one waiter (two at most), never a herd, and a
// handoff usually takes no round trip at all (the queue core's package doc,
// internal/lockq, explains how).
//
// # Handles are shared like sync.Mutex
//
// A *Mutex is one handle. Goroutines that share it exclude each other, as
// with sync.Mutex: while one holds, another's Lock waits in the process (no
// second node is made) and TryLock fails with a *zkrecipes.LockedError whose Local
// field is true; Unlock may come from any goroutine. Two handles always
// contend, even on one client.
//
// Reentrancy is explicit. Curator ties a holding to a Java thread; Go has no
// thread identity, so the holding travels in a context instead:
//
//	ctx, cancel := m.Context(ctx) // carries the holding; cancelled when it is lost
//	defer cancel()
//	m.Lock(ctx)                   // reenters at once (one more Unlock needed)
//
// A goroutine that received no such context waits like any other.
//
// # Knowing when the lock is gone
//
// A lock held over a network can be lost without the holder doing anything:
// its session can expire. Lost returns a channel that closes as soon as
// ownership can no longer be guaranteed: by default when the connection is
// Suspended. The client suspends at the latest two thirds of the negotiated
// session timeout after the send time of the last request the server
// answered, and the server cannot expire the session before a whole timeout
// after it received that request, so Lost closes at least a third of the
// timeout before anyone else can be granted the lock (package client states
// the assumptions: bounded clock drift, no process pause longer than that
// margin). With WithLostOnSessionLossOnly, Lost closes only when the session
// is Lost: fewer false alarms, but another process may already hold the lock
// by then. Lost also closes if the node is deleted under the holder, on
// Unlock, and when the client closes. Context gives a context cancelled at
// the same moment, for work that takes one.
//
// A lost holding is over: IsHeld reports false, a reentrant Lock and Token
// fail with zkrecipes.ErrLost (already once the session has ended or the connection
// was suspended, before Lost's own goroutine has closed it), and the
// handle's Unlock, still needed to free the handle, deletes the node and
// returns an error wrapping zkrecipes.ErrLost, so that the caller learns its critical
// section may have overlapped another holder's.
//
// # Fencing
//
// Token(ctx) is the lock node's creation zxid, read before the grant: tokens
// grow strictly across successive holders of a path, so the resource a
// holder writes to can refuse a holder that was paused past the loss of its
// lock. For writes kept in ZooKeeper itself, OwnerCheck gives an op for
// client.Multi that commits the transaction only while the lock is held.
//
// # Several locks at once
//
// A Multi is Curator's InterProcessMultiLock: a set of locks (mutexes,
// either side of a read/write lock, semaphore mutexes: any Locker) taken
// all or nothing and released together. NewMulti makes the mutexes of a
// list of paths; NewMultiOf takes locks already made.
//
//	m, err := mutex.NewMulti(c, []string{"/accounts/17", "/accounts/4"})
//	err = m.Lock(ctx)                          // both, or neither
//	tok, err := m.Token(ctx, "/accounts/4")    // each lock has its own token
//	<-m.Lost()                                 // closes once any of them may be gone
//	err = m.Unlock(ctx)                        // all of them
//
// Curator takes the locks in the order of its list, so two processes that
// list the same paths in different orders can deadlock: each holds its
// first lock and waits forever for the other's. A Multi takes them in one
// canonical order, sorted by path (byte order, the paths as the locks
// report them, relative to the client's namespace), whatever the order
// they were given in. Every Multi over overlapping paths then takes the
// shared ones in the same order, so no cycle of waits can form, and a
// single Mutex is a Multi of one. Java processes on the same paths keep
// that guarantee if their InterProcessMultiLock lists the paths sorted;
// one that lists them otherwise can still deadlock against anyone, as
// among Java processes.
//
// Lock first tries every lock at once (their TryLocks in flight together:
// one round trip for the set when all are free) and keeps them if it got
// them all; a try never waits, so it cannot deadlock. Otherwise it
// releases what the try took and takes the locks in the canonical order,
// waiting for each (and the next few Locks of the handle skip the try).
// Unlock releases every lock at once.
//
// If a lock already taken may be gone (its Lost closed) before the set is
// complete, the Multi releases what it holds and starts again rather than
// go on waiting with a lock it may no longer hold. Lock's context is the
// only bound on how long it waits.
//
// # Failures
//
// A waiter whose session is lost (or whose node is deleted) queues again
// with a new node, under the client's retry policy: nothing was held, so the
// caller need not know. A holder never re-acquires silently. Every node a
// Lock made and no longer needs (a cancelled context, an error, Unlock) is
// deleted with a guaranteed delete: if the connection is down, the client
// deletes it on every reconnect for as long as the node's session lives.
package mutex
