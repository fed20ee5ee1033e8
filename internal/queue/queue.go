// Package queue is the core every zkrecipes lock stands on: the
// ephemeral-sequential queue. Each contender creates one protected
// EPHEMERAL_SEQUENTIAL node in a directory, lists the directory once, and asks
// a Predicate whether it holds or which single node it must wait for; it then
// watches only that node, so a release wakes one waiter, never a herd.
//
// When the node waited for was the only thing in the way in the waiter's
// last listing, its deletion is itself the grant (fast handoff): no second
// listing. To make that the common case, a waiter also watches the node just
// before the one it waits for: that node's deletion usually means the node
// waited for has just become the holder, so the waiter lists again then,
// while the holder works, off the handoff's critical path. Each node is
// watched by at most two waiters: a release wakes at most two, never a herd,
// and a handoff costs at most one listing.
//
// Every way out of Acquire that does not end in holding deletes the node it
// created. A holder gets a Held whose Lost channel closes as soon as holding
// can no longer be guaranteed.
package queue

import (
	"errors"
	"sync/atomic"

	"github.com/go-zkrecipes/zkrecipes/client"
)

var (
	// ErrWouldBlock is returned by a non-waiting Acquire that does not hold at once.
	ErrWouldBlock = errors.New("zkrecipes: lock is held by another contender")
	// ErrNodeDeleted means the contender's own node was deleted under it
	// (by an operator, or because its session ended).
	ErrNodeDeleted = errors.New("zkrecipes: lock node was deleted")
)

// RevokeMarker is the data Curator writes into a holder's node to ask it to release.
const RevokeMarker = "__REVOKE__"

// Queue is one queue directory. It is immutable and safe for concurrent use.
type Queue struct {
	c       *client.Client
	dir     string
	markers []string
}

// New returns the queue at dir (relative to the client's namespace) whose
// contenders carry one of markers. It does no I/O.
func New(c *client.Client, dir string, markers ...string) *Queue {
	return &Queue{c: c, dir: dir, markers: markers}
}

// Dir is the queue's directory.
func (q *Queue) Dir() string { return q.dir }

// Client is the queue's client.
func (q *Queue) Client() *client.Client { return q.c }

// Markers are the lock names that order the queue.
func (q *Queue) Markers() []string { return q.markers }

// counters, for benchmarks and tests: cheap atomics on paths that do I/O anyway.
var (
	listings atomic.Int64
	wakeups  atomic.Int64
)

// Listings is the number of directory listings made by all queues in this process.
func Listings() int64 { return listings.Load() }

// Wakeups is the number of watch events waiters in this process received.
func Wakeups() int64 { return wakeups.Load() }
