package integration

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// shared is the single server most tests use, each under its own namespace.
// Tests that stop, kill or pause servers start their own.
var shared *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) {
		fmt.Fprintln(os.Stderr, "integration: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}

// namespace gives each test its own root, so tests may share a server.
func namespace(t testing.TB) string { return itest.Namespace(t) }

// noLeaks checks, after every other cleanup of the test has run, that the
// test left no goroutine behind. Call it first in a test that is not parallel.
func noLeaks(t *testing.T) { itest.NoLeaks(t) }

type clientOpts struct {
	cluster *zktest.Cluster
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
	return itest.Connect(t, o.cluster, itest.Opts{Link: o.link, NS: o.ns, Timeout: o.timeout, Extra: o.extra})
}

func ctxT(t testing.TB, d time.Duration) context.Context { return itest.Ctx(t, d) }
