package zktest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// forTestStartTimeout bounds how long ForTest waits for the servers.
const forTestStartTimeout = 3 * time.Minute

// ForTest starts a cluster for a test or benchmark and closes it with
// tb.Cleanup. It fails the test with tb.Fatal when the cluster cannot start; it
// never skips, since integration tests must not be silently skipped.
func ForTest(tb testing.TB, opts ...Option) *Cluster {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), forTestStartTimeout)
	defer cancel()
	c, err := Start(ctx, opts...)
	if err != nil {
		tb.Fatalf("zktest: start ZooKeeper: %v", err)
		return nil
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("zktest: %v", err)
		}
	})
	tb.Logf("zktest: %s at %s", c, c.ConnectString())
	return c
}

// RunMain is a TestMain body for packages whose tests or examples share one
// server: it starts a cluster, calls use with it, runs m, closes the cluster
// and exits with m's code (1 if the cluster cannot start or stop cleanly).
// Like ForTest it never skips: a package that needs ZooKeeper fails without.
func RunMain(m *testing.M, use func(*Cluster), opts ...Option) {
	ctx, cancel := context.WithTimeout(context.Background(), forTestStartTimeout)
	c, err := Start(ctx, opts...)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "zktest: cannot start ZooKeeper (tests are never skipped):", err)
		os.Exit(1)
	}
	use(c)
	code := m.Run()
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "zktest: stop ZooKeeper:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
