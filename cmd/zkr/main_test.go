package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// shared is the one server this package's tests use, each test under its own
// namespace; zkrBin is the zkr binary built once for them.
var (
	shared *zktest.Cluster
	zkrBin string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zkr-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkr: temp dir:", err)
		os.Exit(1)
	}
	zkrBin = filepath.Join(dir, "zkr")
	build := exec.Command("go", "build", "-o", zkrBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "zkr: build:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	shared, err = zktest.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkr: cannot start ZooKeeper (tests are never skipped):", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	if err := shared.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "zkr: stop ZooKeeper:", err)
		code = max(code, 1)
	}
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

var nsCounter atomic.Int64

// namespace is the test's own root on the shared server.
func namespace(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_").Replace(t.Name())
	return fmt.Sprintf("/zkr/%s-%d", name, nsCounter.Add(1))
}

// connect starts a library client in ns, closed at cleanup.
func connect(t testing.TB, ns string) *client.Client {
	t.Helper()
	return connect2(t, shared.ConnectString(), ns)
}

// connect2 is connect to the servers at addr.
func connect2(t testing.TB, addr, ns string) *client.Client {
	t.Helper()
	c, err := client.New(client.WithServers(strings.Split(addr, ",")...), client.WithSessionTimeout(10*time.Second),
		client.WithNamespace(ns))
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

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// zkr runs the binary against the shared server in ns and waits for it.
func zkr(t testing.TB, ns string, args ...string) result {
	t.Helper()
	return zkrIn(t, "", ns, args...)
}

// zkrIn is zkr run in dir (the test's working directory when "").
func zkrIn(t testing.TB, dir, ns string, args ...string) result {
	t.Helper()
	return zkrAt(t, shared.ConnectString(), dir, ns, args...)
}

// zkrAt is zkrIn against the servers at addr.
func zkrAt(t testing.TB, addr, dir, ns string, args ...string) result {
	t.Helper()
	full := append([]string{"--zk", addr, "--namespace", ns}, args...)
	cmd := exec.Command(zkrBin, full...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runWithin(cmd, 90*time.Second)
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("zkr %v: %v", args, err)
	}
	return r
}

// runWithin runs cmd, killing it after d (a hung binary fails the test
// instead of hanging it).
func runWithin(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("killed after %v", d)
	}
}

// requireOneLineError checks a failure's message: one line, "zkr: ...", no
// stack trace, nothing on stdout.
func requireOneLineError(t *testing.T, r result, code int) {
	t.Helper()
	require.Equal(t, code, r.code, "stdout %q stderr %q", r.stdout, r.stderr)
	msg := strings.TrimRight(r.stderr, "\n")
	require.NotContains(t, msg, "\n", "one line: %q", r.stderr)
	require.True(t, strings.HasPrefix(msg, "zkr: "), "message %q", msg)
	require.NotContains(t, msg, "goroutine")
	require.Empty(t, r.stdout)
}
