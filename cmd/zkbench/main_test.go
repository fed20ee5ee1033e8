package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// zkAddr is the connect string of the one ZooKeeper server TestMain starts
// for this package's tests and benchmarks.
var zkAddr string

// TestMain starts one throwaway ZooKeeper server (ZK_BACKEND and ZK_IMAGE
// choose how) for the whole package, and checks that nothing is left
// running at the end. Without a server it fails; it never skips.
func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cluster, err := zktest.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkbench: cannot start ZooKeeper (tests are never skipped):", err)
		os.Exit(1)
	}
	zkAddr = cluster.ConnectString()
	code := m.Run()
	if err := cluster.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "zkbench: stop ZooKeeper:", err)
		code = max(code, 1)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "zkbench: goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}
