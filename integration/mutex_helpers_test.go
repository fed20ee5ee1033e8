package integration

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// Helpers of the mutex tests. Their names start with "mx" so that they do not
// collide with the helpers of other recipes' tests in this package.

// mxLockPath is the lock every mutex test contends on, under its namespace.
const mxLockPath = "/lock"

// mxNodeName is the name Curator gives a mutex node:
// _c_<36-character lowercase UUID>-lock-<10-digit sequence>.
var mxNodeName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-[0-9]{10}$`)

// mxNew returns a handle on path for c, failing the test on error.
func mxNew(t testing.TB, c *client.Client, p string, opts ...mutex.Option) *mutex.Mutex {
	t.Helper()
	m, err := mutex.New(c, p, opts...)
	require.NoError(t, err)
	return m
}

// mxWaitQueued waits until the lock m is a handle on has exactly n
// contenders and returns them in queue order.
func mxWaitQueued(t testing.TB, m *mutex.Mutex, n int) []mutex.Participant {
	t.Helper()
	var ps []mutex.Participant
	eventually(t, 10*time.Second, fmt.Sprintf("%d contenders for %s", n, m.Path()), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		ps, err = m.Participants(ctx)
		require.NoError(t, err)
		return len(ps) == n
	})
	return ps
}

// mxResult is the outcome of a Lock run on its own goroutine.
type mxResult struct {
	err error
	at  time.Time // when Lock returned
}

// mxLockAsync runs m.Lock(ctx) on its own goroutine; the result arrives on
// the channel returned (buffered, so the goroutine never blocks on it).
func mxLockAsync(ctx context.Context, m *mutex.Mutex) <-chan mxResult {
	ch := make(chan mxResult, 1)
	go func() {
		err := m.Lock(ctx)
		ch <- mxResult{err: err, at: time.Now()}
	}()
	return ch
}

// mxNames returns the participants' names.
func mxNames(ps []mutex.Participant) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// mxBase is the name of the node at p.
func mxBase(p string) string { return path.Base(p) }

// mxTok is a handle's fencing token, or 0 when Token fails (not held, lost).
func mxTok(l mutex.Locker) int64 {
	t, err := l.Token(context.Background())
	if err != nil {
		return 0
	}
	return t
}
