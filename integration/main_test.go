package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
	"github.com/go-zkrecipes/zkrecipes/integration/zkharness/faultlink"
)

// shared is the single server most tests use, each under its own namespace.
// Tests that stop, kill or pause servers start their own.
var shared *zkharness.Cluster

func TestMain(m *testing.M) {
	zkharness.RunMain(m, func(c *zkharness.Cluster) {
		fmt.Fprintln(os.Stderr, "integration: shared cluster:", c)
		shared = c
	})
}

var nsCounter atomic.Int64

// namespace gives each test its own root, so tests may share a server.
func namespace(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_").Replace(t.Name())
	return fmt.Sprintf("/it/%s-%d", name, nsCounter.Add(1))
}

// noLeaks checks, after every other cleanup of the test has run, that the
// test left no goroutine behind. Call it first in a test that is not parallel.
func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

type clientOpts struct {
	cluster *zkharness.Cluster
	link    *faultlink.Link
	ns      string
	timeout time.Duration
	extra   []client.Option
}

// connect starts a client on the shared server (or o.cluster), in the test's
// namespace unless o.ns says otherwise, and closes it at cleanup.
func connect(t testing.TB, o clientOpts) *client.Client {
	t.Helper()
	if o.cluster == nil {
		o.cluster = shared
	}
	if o.timeout == 0 {
		o.timeout = 4 * time.Second
	}
	opts := []client.Option{
		client.WithServers(o.cluster.Addrs()...),
		client.WithSessionTimeout(o.timeout),
	}
	if o.ns != "" {
		opts = append(opts, client.WithNamespace(o.ns))
	}
	if o.link != nil {
		opts = append(opts, client.WithDialer(o.link.Dial))
	}
	opts = append(opts, o.extra...)
	c, err := client.New(opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
