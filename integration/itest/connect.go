package itest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

var nsCounter atomic.Int64

// Namespace gives each test its own root, so tests may share a server.
func Namespace(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_").Replace(t.Name())
	return fmt.Sprintf("/it/%s-%d", name, nsCounter.Add(1))
}

// NoLeaks checks, after every other cleanup of the test has run, that the
// test left no goroutine behind. Call it first in a test that is not parallel.
func NoLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// Opts says how Connect makes a client. Zero fields take defaults.
type Opts struct {
	Link    *faultlink.Link // dial through this fault link
	NS      string          // namespace; "" for none
	Timeout time.Duration   // session timeout; default 4s
	Extra   []client.Option // more options, applied last
}

// Connect starts a client on cl, waits up to 30 s until it can carry
// requests (its session and its sentinel watch set), and closes it at
// cleanup.
func Connect(t testing.TB, cl *zktest.Cluster, o Opts) *client.Client {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 4 * time.Second
	}
	opts := []client.Option{
		client.WithServers(cl.Addrs()...),
		client.WithSessionTimeout(o.Timeout),
	}
	if o.NS != "" {
		opts = append(opts, client.WithNamespace(o.NS))
	}
	if o.Link != nil {
		opts = append(opts, client.WithDialer(o.Link.Dial))
	}
	opts = append(opts, o.Extra...)
	c, err := client.New(opts...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	// Up, not only with a session: the client's own sentinel watch (one
	// exists request) is answered before the test looks at its link's
	// request counts, and cannot land after a base was taken.
	_, err = c.Conn(ctx)
	require.NoError(t, err)
	return c
}

// NewLink returns a fault-injecting link that is closed at cleanup. Call it
// before Connect, so that the client (closed by a cleanup registered later,
// hence run earlier) is closed first.
func NewLink(t testing.TB) *faultlink.Link {
	l := faultlink.New()
	t.Cleanup(l.Close)
	return l
}

// Ctx is a context that ends after d or at the test's end.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// KeepRoot makes /it, the parent of every test's namespace (Namespace), a
// persistent node on each cluster, so that it is never a container the
// server may reap between two tests. Call it once, before the tests, on a
// package's shared clusters; a failure is printed (the tests then fail on
// their own). Why: Curator 5.4 loses a background create whose container
// parents it makes while the server reaps one of them (its mkdirs gets
// NoNode, which it neither retries nor reports), so a Java recipe started
// while the last test's namespace is being reaped away under a container
// /it never makes its node.
func KeepRoot(clusters ...*zktest.Cluster) {
	for _, cl := range clusters {
		if err := keepRoot(cl); err != nil {
			fmt.Fprintf(os.Stderr, "itest: making /it on %v: %v\n", cl, err)
		}
	}
}

func keepRoot(cl *zktest.Cluster) error {
	c, err := client.New(client.WithServers(cl.Addrs()...))
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return err
	}
	_, err = c.Create(ctx, "/it", nil, 0)
	if errors.Is(err, zk.ErrNodeExists) {
		return nil
	}
	return err
}
