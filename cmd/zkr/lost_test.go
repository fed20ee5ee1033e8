package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// A holder whose server stops answering loses the lock past its session
// timeout: its child is terminated, and a second zkr lock queued on the same
// path starts its child only after that child has ended.
func TestLockChildTerminatedWhenTheSessionIsCut(t *testing.T) {
	cluster := zktest.ForTest(t) // its own server: this test freezes it
	addr := cluster.ConnectString()
	ns := namespace(t)
	dir := t.TempDir()
	first := make(chan result, 1)
	go func() {
		first <- zkrAt(t, addr, dir, ns, "--session-timeout", "4s", "--timeout", "2s", "lock", "--grace", "5s", "/jobs/cut", "--",
			"sh", "-c", `touch started1; trap 'touch ended1; exit 0' TERM; while :; do sleep 0.05; done`)
	}()
	waitFile(t, filepath.Join(dir, "started1"))
	second := make(chan result, 1)
	go func() {
		second <- zkrAt(t, addr, dir, ns, "--session-timeout", "2s", "lock", "/jobs/cut", "--",
			"sh", "-c", `test -e ended1 && touch started2`)
	}()
	c := connect2(t, addr, ns)
	waitChildren(t, c, "/jobs/cut", 2) // the second is queued
	_ = c.Close()

	ctx := ctxT(t, 2*time.Minute)
	require.NoError(t, cluster.PauseServer(ctx, 0))
	var r1 result
	select {
	case r1 = <-first:
	case <-ctx.Done():
		_ = cluster.ResumeServer(context.Background(), 0)
		t.Fatal("the first zkr lock never gave up its holding")
	}
	require.NoError(t, cluster.ResumeServer(ctx, 0))
	require.Equal(t, 1, r1.code, "lost, and the child exited 0 on SIGTERM: %s", r1.stderr)
	require.Contains(t, r1.stderr, "was lost")
	require.FileExists(t, filepath.Join(dir, "ended1"))

	r2 := <-second
	require.Equal(t, 0, r2.code, "the second child ran before the first ended: %s", r2.stderr)
	require.FileExists(t, filepath.Join(dir, "started2"))
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := os.Stat(p)
		return err == nil
	}, 60*time.Second, 10*time.Millisecond, "%s never appeared", p)
}
