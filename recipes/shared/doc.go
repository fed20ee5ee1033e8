// Package shared holds values that several processes share through
// ZooKeeper. Bytes is the Go counterpart of Apache Curator's SharedValue
// (arbitrary bytes, versioned), Count that of its SharedCount (an int32),
// and both are wire compatible with them: a Go Bytes and a Java
// SharedValue on one path read and write the same bytes, a Go Count and a
// Java SharedCount the same number. A Count is a Bytes whose data is a
// number, as Curator's SharedCount is a SharedValue.
//
// # Starting
//
// Start creates the node with the seed when it is missing and reads it. It
// returns once the value is read, or when its context ends: the value then
// goes on starting in the background (Get says zkrecipes.ErrNotStarted
// until it has read the node) until Close. An error that will not pass by
// trying again (a closed client; a missing node this client may not
// create; for a Count, data that is not a count) leaves nothing running,
// and Start may be called again.
//
// # The node
//
// A Bytes lives in one PERSISTENT node whose data is the value, as
// Curator's SharedValue keeps it. A count lives in one such node, its
// data the number as a 4-byte
// big-endian two's-complement int32 (Curator's encoding), for example
// 00 00 00 07 for 7. Start creates the node with the seed when it is
// missing (missing parents become container nodes, as in Curator), so the
// first process to start decides the initial value and every later one
// reads it.
//
// # Reading
//
// Get never does I/O: it returns the value from the last read, with the
// node's version and mzxid (a Versioned for Bytes, a Value for Count).
// Each keeps a data watch on the node and
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
// version of a reading taken earlier, ZooKeeper's compare-and-set: of
// several processes that TrySet from one version, exactly one succeeds,
// and the others learn the newer value at once (TrySet reads it before
// returning false), so a retry loop needs no wait for the watch. A reading
// older than the value held fails at once, with no round trip; one made up
// by the caller must carry the version and the data held, as Curator's
// trySetValue requires.
//
// # Bad data
//
// Data that is not exactly 4 bytes is not a count. Start and Get report it
// as a *BadDataError (errors.Is(err, ErrBadData)), never a panic; the Value
// then carries the node's version, so TrySet can repair it.
package shared
