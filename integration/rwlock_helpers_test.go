package integration

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

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

// rwPatience is how long a test waits for a lock call it expects to return.
const rwPatience = 15 * time.Second

// rwHandle connects a client of its own (its own session) and returns a
// handle on the test's lock.
func rwHandle(t *testing.T, o clientOpts) (*rwlock.RWMutex, *client.Client) {
	t.Helper()
	c := connect(t, o)
	rw, err := rwlock.New(c, rwDir)
	require.NoError(t, err)
	return rw, c
}

// rwAsync runs f on its own goroutine; its error arrives on the channel.
func rwAsync(ctx context.Context, f func(context.Context) error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f(ctx) }()
	return ch
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
	// A holding that was lost still counts (IsHeld is then false): the
	// handle keeps its node until its Unlock.
	require.NotEmpty(t, rw.WriteLock().Node(), "rwUnderWrite without a write holding")
	return wctx
}
