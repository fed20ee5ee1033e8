package queueit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// onBoth runs f on the shared server and on the ensemble, as subtests.
func onBoth(t *testing.T, f func(t *testing.T, cl *zktest.Cluster)) {
	t.Run("OneServer", func(t *testing.T) { f(t, shared) })
	t.Run("Ensemble", func(t *testing.T) { f(t, ensemble) })
}

// connect is a client on cl in namespace ns.
func connect(t *testing.T, cl *zktest.Cluster, ns string) *client.Client {
	t.Helper()
	return itest.Connect(t, cl, itest.Opts{NS: ns})
}

// consumed collects what a consumer's handler got, in order.
type consumed struct {
	mu    sync.Mutex
	items []string
	more  chan struct{} // a value each time an item comes
}

func newConsumed() *consumed { return &consumed{more: make(chan struct{}, 1<<16)} }

func (c *consumed) add(s string) {
	c.mu.Lock()
	c.items = append(c.items, s)
	c.mu.Unlock()
	c.more <- struct{}{}
}

func (c *consumed) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.items...)
}

func (c *consumed) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// wait waits until n items came, up to d.
func (c *consumed) wait(t *testing.T, n int, d time.Duration) []string {
	t.Helper()
	itest.Eventually(t, d, "items consumed", func() bool { return c.len() >= n })
	return c.all()
}

// handler records each item's data.
func (c *consumed) handler() queue.Handler {
	return func(_ context.Context, it *queue.Item) error {
		c.add(string(it.Data))
		return nil
	}
}

// consuming runs consume on a goroutine until the test's end (its ctx is
// cancelled at cleanup, and the cleanup waits for it to return).
func consuming(t *testing.T, consume func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- consume(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && ctx.Err() == nil {
				t.Errorf("consume: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("consume did not return within 30 s of its cancel")
		}
	})
}

// closeAtEnd closes q at cleanup.
func closeAtEnd(t *testing.T, close func(context.Context) error) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(t, close(ctx))
	})
}

// clientT is the client type the helpers take.
type clientT = *client.Client

// consumingLoop runs consume(ctx, h) until the test's end.
func consumingLoop(t *testing.T, consume func(context.Context, queue.Handler) error, h queue.Handler) {
	t.Helper()
	consuming(t, func(ctx context.Context) error { return consume(ctx, h) })
}
