package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

var summary = regexp.MustCompile(`(?m)^reads (\d+) \(max (\d+) at once\), writes (\d+), overlapping writes (\d+)$`)

// checkSummary parses run's last line and checks it against the settings.
func checkSummary(t *testing.T, out string, reads, writes int) (maxReaders int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	m := summary.FindStringSubmatch(lines[len(lines)-1])
	require.NotNil(t, m, "last line is not the summary:\n%s", out)
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		return n
	}
	require.Equal(t, reads, num(m[1]), "reads")
	require.Equal(t, writes, num(m[3]), "writes")
	require.Zero(t, num(m[4]), "overlapping writes")
	maxReaders = num(m[2])
	if reads > 0 {
		require.GreaterOrEqual(t, maxReaders, 1)
	}
	require.LessOrEqual(t, maxReaders, reads)
	return maxReaders
}

// zkServers are the addresses of the ZooKeeper server TestMain starts.
var zkServers string

// TestMain starts one throwaway ZooKeeper server (ZK_BACKEND and ZK_IMAGE
// choose how) for the tests that pass -zk. Without one they cannot run, so
// it fails loudly rather than skipping them.
func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cluster, err := zktest.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples/rwlock: cannot start ZooKeeper (tests are never skipped):", err)
		os.Exit(1)
	}
	zkServers = cluster.ConnectString()
	code := m.Run()
	if err := cluster.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "examples/rwlock: stop ZooKeeper:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func TestRunAgainstServer(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var out bytes.Buffer
	err := run(ctx, []string{"-zk", zkServers, "-stock", "5"}, &out)
	require.NoError(t, err, out.String())
	t.Log("\n" + out.String())
	// 10 shoppers, 3 of them buyers, 4 visits each.
	maxReaders := checkSummary(t, out.String(), 7*4, 3*4)
	t.Logf("max readers at once: %d", maxReaders)
	require.Contains(t, out.String(), "stock: started 5, sold 5, left 0")
	require.Equal(t, 7*4, strings.Count(out.String(), " reads stock="))
	require.Equal(t, 5, strings.Count(out.String(), " buys a packet"))
	require.Equal(t, 7, strings.Count(out.String(), " finds the shelf empty"))
	require.NotContains(t, out.String(), "NOT alone")
}

func TestRunOnlyBuyers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, []string{"-zk", zkServers, "-shoppers", "4", "-buyers", "4", "-visits", "3", "-stock", "20"}, &out)
	require.NoError(t, err, out.String())
	checkSummary(t, out.String(), 0, 12)
	require.Contains(t, out.String(), "stock: started 20, sold 12, left 8")
}

// TestRunThrowawayServer runs the command as `go run` does, with no -zk.
func TestRunThrowawayServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, []string{"-shoppers", "4", "-buyers", "1", "-visits", "2"}, &out), out.String())
	checkSummary(t, out.String(), 3*2, 1*2)
}

func TestRunBadFlags(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"-shoppers", "0"},
		{"-buyers", "11"},
		{"-buyers", "-1"},
		{"-visits", "0"},
		{"-stock", "-3"},
		{"-zk", " , "},
		{"extra"},
		{"-nosuchflag"},
	} {
		var out bytes.Buffer
		require.Error(t, run(ctx, args, &out), "args %q", args)
		require.Empty(t, out.String(), "args %q: nothing should run", args)
	}
}
