package zkharness

import (
	"context"
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
		tb.Fatalf("zkharness: start ZooKeeper: %v", err)
		return nil
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("zkharness: %v", err)
		}
	})
	tb.Logf("zkharness: %s at %s", c, c.ConnectString())
	return c
}
