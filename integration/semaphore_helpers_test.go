package integration

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// Helpers of the semaphore tests. Their names start with "sem".

// semPath is the semaphore every semaphore test uses, under its namespace;
// semLeases and semLocks are its two directories, as Curator names them.
const (
	semPath   = "/sem"
	semLeases = semPath + "/leases"
	semLocks  = semPath + "/locks"
)

// semNew returns a semaphore handle on semPath for c, failing the test on error.
func semNew(t testing.TB, c *client.Client, maxLeases int, opts ...semaphore.Option) *semaphore.Semaphore {
	t.Helper()
	s, err := semaphore.New(c, semPath, maxLeases, opts...)
	require.NoError(t, err)
	return s
}

// semResult is the outcome of an acquire run on its own goroutine.
type semResult struct {
	leases []*semaphore.Lease
	err    error
}

// semAcquireAsync runs s.AcquireN(ctx, n) on its own goroutine; the result
// arrives on the channel returned (buffered).
func semAcquireAsync(ctx context.Context, s *semaphore.Semaphore, n int) <-chan semResult {
	ch := make(chan semResult, 1)
	go func() {
		ls, err := s.AcquireN(ctx, n)
		ch <- semResult{ls, err}
	}()
	return ch
}

// semReleaseAll releases every lease, failing the test on error.
func semReleaseAll(t testing.TB, ctx context.Context, leases []*semaphore.Lease) {
	t.Helper()
	for _, l := range leases {
		require.NoError(t, l.Release(ctx))
	}
}

// semSeq is the sequence number at the end of a lease node's name (-1,
// with a test failure, when it has none).
func semSeq(t testing.TB, name string) int64 {
	t.Helper()
	if len(name) < 10 {
		assert.Fail(t, "not a sequential node", "%q", name)
		return -1
	}
	n, err := strconv.ParseInt(name[len(name)-10:], 10, 64)
	if !assert.NoError(t, err, "not a sequential node: %q", name) {
		return -1
	}
	return n
}

// semServerCount is the server-side check made at every grant: the lease
// nodes on the server whose sequence number is at most the highest of the
// leases just granted. Every such node existed already when the granting
// listing was taken (a node name is never reused), so if the semaphore is
// right their number is at most the limit, whatever other acquirers are
// doing meanwhile (their nodes are newer). It reports failures with assert,
// so it may run on any goroutine.
func semServerCount(t testing.TB, obs *client.Client, granted []*semaphore.Lease) int {
	t.Helper()
	var top int64
	for _, l := range granted {
		top = max(top, semSeq(t, path.Base(l.Node())))
	}
	kids, err := tryChildren(obs, semLeases)
	assert.NoError(t, err, "listing the leases")
	n := 0
	for _, k := range kids {
		if semSeq(t, k) <= top {
			n++
		}
	}
	return n
}

// semGauge counts the leases held at once in this process and remembers the
// peak.
type semGauge struct {
	mu         sync.Mutex
	inside     int
	peak       int
	serverPeak int
	grants     int
}

// enter records n leases granted (and the server-side count made for them).
func (g *semGauge) enter(n, server int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inside += n
	g.grants++
	g.peak = max(g.peak, g.inside)
	g.serverPeak = max(g.serverPeak, server)
}

// leave records n leases about to be released.
func (g *semGauge) leave(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inside -= n
}

func (g *semGauge) now() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inside
}

func (g *semGauge) stats() (peak, serverPeak, grants int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak, g.serverPeak, g.grants
}

// semNoNodes waits until neither directory of the semaphore has a child
// left, as obs sees them.
func semNoNodes(t testing.TB, obs *client.Client) {
	t.Helper()
	eventually(t, 10*time.Second, "the semaphore's directories to be empty", func() bool {
		return len(children(t, obs, semLeases)) == 0 && len(children(t, obs, semLocks)) == 0
	})
}

// semWaiting waits until one acquirer waits for room on Curator's way: it
// holds the locks mutex (one node in locks/) and its lease node is made
// (leases/ has n nodes, the holders' included). It returns the lease
// nodes. Counting lease nodes alone is not enough: an acquirer's fast path
// makes a lease node for a moment before it declines (it deletes it, then
// takes the mutex), and a test that acts on that node races its delete.
// Once the mutex node is seen, the fast-path node is gone (one session's
// requests are applied in order).
func semWaiting(t testing.TB, obs *client.Client, n int) []string {
	t.Helper()
	var kids []string
	eventually(t, 10*time.Second, fmt.Sprintf("an acquirer waiting for room (locks/ 1 node, leases/ %d)", n), func() bool {
		if len(children(t, obs, semLocks)) != 1 { // first: then the listing below is later
			return false
		}
		kids = children(t, obs, semLeases)
		return len(kids) == n
	})
	return kids
}
