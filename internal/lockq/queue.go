// Package lockq is the core every zkrecipes lock stands on: the
// ephemeral-sequential queue. Each contender creates one protected
// EPHEMERAL_SEQUENTIAL node in a directory; it then lists the directory and
// reads its own node in one round trip (the read gives the fencing token and
// proves the node belongs to the contender's live session) and asks a
// Predicate whether it holds or which single node it must wait for; it then
// watches only that node, so a release wakes one waiter, never a herd.
//
// Fast handoff. When the node waited for was the only thing in the way in
// the waiter's last listing, its deletion is itself the grant: no second
// listing. To make that the common case, a waiter also watches the node just
// before the one it waits for: that node's deletion usually means the node
// waited for has just become the holder, so the waiter lists again then,
// while the holder works, off the handoff's critical path. Each node is
// watched by at most two waiters: a release wakes at most two, never a herd,
// and a handoff costs at most one listing. (This explanation is kept here
// only; the recipes' docs point to it.)
//
// Safety. A grant is only made on a view taken while the connection stayed
// up, on a node whose ephemeralOwner is the live session it was created for.
// A waiter whose session is lost, or whose node is deleted, queues again
// under the client's retry policy: nothing was held, so the caller need not
// know. A holder never re-acquires silently: its Lost channel closes. Every
// way out of an acquire that does not end in holding deletes the node it
// created, with a guaranteed delete that outlives any retry policy for as
// long as the node's session lives.
//
// Handles. A Handle is what a recipe hands its users: goroutines that share
// one handle exclude each other locally, as with sync.Mutex, before any
// node is made; reentrancy is explicit, through a context that carries the
// holding (Handle.Context).
package lockq

import (
	"sync/atomic"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// RevokeMarker is the data Curator writes into a holder's node to ask it to release.
const RevokeMarker = "__REVOKE__"

// Queue is one queue directory. It is safe for concurrent use.
type Queue struct {
	c       *client.Client
	dir     string
	markers []string

	// dirSeen: a create in dir succeeded, so the directory is likely there
	// and an acquire's create carries its listing (see attempt).
	dirSeen atomic.Bool
}

// New returns the queue at dir (relative to the client's namespace) whose
// contenders carry one of markers. It does no I/O.
func New(c *client.Client, dir string, markers ...string) *Queue {
	return &Queue{c: c, dir: dir, markers: markers}
}

// Dir is the queue's directory.
func (q *Queue) Dir() string { return q.dir }

// wakeups counts the watch events waiters in this process received.
var wakeups atomic.Int64

// BenchWakeups is a benchmark hook: the number of watch events waiters in
// this process have received (zkbench reports events per release with it).
func BenchWakeups() int64 { return wakeups.Load() }
