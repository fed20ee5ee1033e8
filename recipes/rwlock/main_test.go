package rwlock_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
)

// zkServers are the client addresses of the ZooKeeper server that TestMain
// starts for this package's examples.
var zkServers []string

// TestMain runs the package's examples against one throwaway ZooKeeper
// server (ZK_BACKEND and ZK_IMAGE choose how it runs). The examples cannot
// run without it, so when it does not start the test binary fails; it never
// skips them.
func TestMain(m *testing.M) {
	// Every client logs its connection states at Info: noise in test output.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cluster, err := zkharness.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "recipes/rwlock: cannot start ZooKeeper (examples are never skipped):", err)
		os.Exit(1)
	}
	zkServers = cluster.Addrs()
	code := m.Run()
	if err := cluster.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "recipes/rwlock: stop ZooKeeper:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
