package mutex_test

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
// starts for this package's tests and examples.
var zkServers []string

// TestMain starts one throwaway ZooKeeper server (ZK_BACKEND and ZK_IMAGE
// choose how) for the whole package. Without one the examples cannot run, so
// it fails loudly rather than skipping them.
func TestMain(m *testing.M) {
	// The clients' connection state changes would only clutter test logs.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cluster, err := zkharness.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "recipes/mutex: cannot start ZooKeeper (tests are never skipped):", err)
		os.Exit(1)
	}
	zkServers = cluster.Addrs()
	code := m.Run()
	if err := cluster.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "recipes/mutex: stop ZooKeeper:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
