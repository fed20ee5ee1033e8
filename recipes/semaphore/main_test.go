package semaphore_test

import (
	"log/slog"
	"os"
	"testing"

	"github.com/go-zkrecipes/zkrecipes/integration/zkharness"
)

// zkServers are the client addresses of the ZooKeeper server that TestMain
// starts for this package's examples.
var zkServers []string

// TestMain starts one throwaway ZooKeeper server (ZK_BACKEND and ZK_IMAGE
// choose how) for the whole package; without one it fails loudly.
func TestMain(m *testing.M) {
	// Every client logs its connection states at Info: noise in test output.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	zkharness.RunMain(m, func(c *zkharness.Cluster) { zkServers = c.Addrs() })
}
