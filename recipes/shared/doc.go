// Package shared holds values that several processes share through
// ZooKeeper. Count is the Go counterpart of Apache Curator's SharedCount,
// and wire compatible with it: a Go Count and a Java SharedCount on one path
// read and write the same number.
//
// # The node
//
// A count lives in one PERSISTENT node whose data is the number as a 4-byte
// big-endian two's-complement int32 (Curator's encoding), for example
// 00 00 00 07 for 7. Start creates the node with the seed when it is
// missing (missing parents become container nodes, as in Curator), so the
// first process to start decides the initial value and every later one
// reads it.
//
// # Reading
//
// Get never does I/O: it returns the value from the last read, with the
// node's version and mzxid. The count keeps a data watch on the node and
// reads it again after every watch event and after every reconnect, so a
// change made while this process was disconnected is seen as soon as the
// connection is back. Values only move forward: a read is taken only if its
// mzxid (the zxid of the write that made it) is newer than the one held.
//
// Events delivers every value that replaces the held one, in order and
// none dropped: each subscriber has its own unbounded queue, so a slow
// reader delays no other and the watcher never waits for a reader
// (package semaphore subscribes to wake acquirers when the limit it takes
// from a count is raised).
//
// # Writing
//
// Set writes unconditionally. TrySet writes only if the node still has the
// version of a Value read earlier, ZooKeeper's compare-and-set: of several
// processes that TrySet from one version, exactly one succeeds, and the
// others learn the newer value at once (TrySet reads it before returning
// false), so a retry loop needs no wait for the watch.
//
// # Bad data
//
// Data that is not exactly 4 bytes is not a count. Start and Get report it
// as a *BadDataError (errors.Is(err, ErrBadData)), never a panic; the Value
// then carries the node's version, so TrySet can repair it.
package shared
