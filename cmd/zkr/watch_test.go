package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

func TestWatchPrintsEveryChangeUntilInterrupted(t *testing.T) {
	ns := namespace(t)
	cmd := exec.Command(zkrBin, "--zk", shared.ConnectString(), "--namespace", ns, "watch", "--json", "/w")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	views := make(chan View, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var v View
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				views <- v
			}
		}
		close(views)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	// waitView waits for a view whose holders' data are want, in order.
	waitView := func(want ...string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case v, ok := <-views:
				require.True(t, ok, "zkr watch ended")
				got := []string{}
				for _, n := range v.Nodes {
					got = append(got, n.Role+"/"+n.Data)
				}
				if equal(got, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no view with %v", want)
			}
		}
	}
	ctx := ctxT(t, time.Minute)
	a, err := mutex.New(connect(t, ns), "/w", mutex.WithData([]byte("host-a")))
	require.NoError(t, err)
	require.NoError(t, a.Lock(ctx))
	waitView("holder/host-a")
	b, err := mutex.New(connect(t, ns), "/w", mutex.WithData([]byte("host-b")))
	require.NoError(t, err)
	locked := make(chan error, 1)
	go func() { locked <- b.Lock(ctx) }()
	waitView("holder/host-a", "waiter/host-b")
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, <-locked)
	waitView("holder/host-b")
	require.NoError(t, b.Unlock(ctx))

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	for range views {
	}
	select {
	case err := <-exited:
		require.NoError(t, err, "zkr watch exits 0 on Ctrl-C")
	case <-ctx.Done():
		t.Fatal("zkr watch did not end on SIGINT")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
