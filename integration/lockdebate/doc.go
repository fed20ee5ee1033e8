// Package lockdebate plays the seeds' debate about distributed locks on real
// servers, for examples/fencing and integration/fencingit: which lock lets a
// stale holder write, and which failover hands a lock to two clients.
//
// # The locks
//
//   - KindRedis: SET key value NX PX lease, released by a Lua script that
//     deletes the key only while it holds the holder's value; the holder's
//     check is GET key == value.
//   - KindMySQL: a row in a table unique by the lock's name, with an
//     expires_at in the database's clock: taking the lock deletes an expired
//     row and inserts one (a duplicate key means held), releasing deletes the
//     holder's row; the check selects it, unexpired.
//   - KindZK: zkrecipes' mutex; the check is Lost() (not closed) and IsHeld.
//   - KindZKFenced: the same, with Token (the lock node's czxid) carried
//     into every write, which the resource compares with the highest token
//     it has seen (Resource.WriteFenced).
//
// # The paused holder
//
// PlayPause plays Martin Kleppmann's scenario in rounds, every lock in a lane
// of its own, all at once. Contender A runs in a process of its own (the
// current executable again: see ServeHolderIfChild); in each round it takes
// the lock, writes to the resource, checks that it still holds the lock,
// and reports. The referee then stops A's process with SIGSTOP, which stops
// everything in it as a long GC pause or a frozen VM would, the ZooKeeper
// client's heartbeats included, so A's lease runs out or its session
// expires. Contender B takes the same lock and writes; the referee resumes
// A (SIGCONT), which writes at once, still trusting its check. The pause
// comes between the check and the write on purpose: a pause can come at any
// instruction, and that is the one no check can close.
//
// The resource is a row of a MariaDB table; every accepted write is also
// appended to a history table in the same transaction. A Round counts A's
// last write as a stale write accepted or refused, and as an overlap when
// the history shows A's holding on both sides of B's (A, B, A): two
// holdings at once, as the storage itself saw them.
//
// # The failovers
//
// PlayRedisFailover runs a fresh primary and replica per round, the replica
// replicating through a relay the scenario holds before client A's SET, so
// the lock key never reaches the replica; the primary is killed, the replica
// promoted, and client B's SET NX on it succeeds within A's lease: two
// holders. Its control waits for the replica (WAIT 1) before the kill.
// PlayZKFailover kills a ZooKeeper ensemble's leader right after A got the
// mutex, with B waiting for it, and counts the rounds in which B got it while
// A still held it.
//
// # Servers
//
// StartRedis and StartMariaDB run Debian's redis-server and mariadb-server
// programs as throwaway child processes on loopback, each with its own port
// and temporary directory, killed with their parent; never system services.
// CheckRedis, CheckMySQL and CheckZK tell whether given servers answer,
// writing nothing.
package lockdebate
