package integration

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// rwDir is the lock directory the read/write lock tests use in their namespace.
const rwDir = "/rw"

// rwQuiet is how long a test waits to be convinced that something blocked
// stays blocked. It only ever makes a passing test slower, never a failing
// one pass.
const rwQuiet = 400 * time.Millisecond

// rwHandle connects a client of its own (its own session) and returns a
// handle on the test's lock.
func rwHandle(t *testing.T, o clientOpts) (*rwlock.RWMutex, *client.Client) {
	t.Helper()
	c := connect(t, o)
	rw, err := rwlock.New(c, rwDir)
	require.NoError(t, err)
	return rw, c
}

// rwChildren lists the lock directory's children, sorted by name (nil when
// the directory does not exist).
func rwChildren(t *testing.T, ctx context.Context, c *client.Client) []string {
	t.Helper()
	kids, _, err := c.Children(ctx, rwDir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	require.NoError(t, err)
	sort.Strings(kids)
	return kids
}

// rwWaitChildren polls until the lock directory has exactly n children and
// returns them.
func rwWaitChildren(t *testing.T, ctx context.Context, c *client.Client, n int) []string {
	t.Helper()
	var kids []string
	require.Eventually(t, func() bool {
		kids = rwChildren(t, ctx, c)
		return len(kids) == n
	}, 10*time.Second, 10*time.Millisecond, "waiting for %d nodes in %s", n, rwDir)
	return kids
}

// rwAsync runs f on its own goroutine; its error arrives on the channel.
func rwAsync(ctx context.Context, f func(context.Context) error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f(ctx) }()
	return ch
}

// rwStillWaiting asserts that nothing arrives on ch for rwQuiet.
func rwStillWaiting(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned early (err=%v) although it should still wait", what, err)
	case <-time.After(rwQuiet):
	}
}

// rwDone waits (generously) for the result on ch.
func rwDone(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(15 * time.Second):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

// rwLog records events in the order they happen, from many goroutines.
type rwLog struct {
	mu     sync.Mutex
	events []string
}

func (l *rwLog) add(ev string) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

func (l *rwLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// index is the position of ev in the log, or -1.
func (l *rwLog) index(ev string) int { return slices.Index(l.list(), ev) }

// rwUnderWrite returns a context that carries rw's write holding, so that
// rw.RLock with it takes the read lock beside the write lock (Curator's
// downgrade spelling) instead of waiting for the handle's own writer.
func rwUnderWrite(t testing.TB, ctx context.Context, rw *rwlock.RWMutex) context.Context {
	t.Helper()
	wctx, cancel := rw.WriteLock().Context(ctx)
	t.Cleanup(cancel)
	require.True(t, rw.WriteLock().IsHeld(), "rwUnderWrite without a write holding")
	return wctx
}
