package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestLockSeveralPaths: zkr lock over several paths holds every mutex
// while the command runs: the command gets each path's token in
// ZKR_FENCING_TOKENS (in the order given) and the first one's in
// ZKR_FENCING_TOKEN; meanwhile a mutex on either path cannot be had, a
// --try over one of them exits 1 naming it, and a second zkr lock over
// the same paths listed the other way round waits and runs after the
// first command ended (no deadlock). Nothing is left under the paths.
func TestLockSeveralPaths(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	first := make(chan result, 1)
	go func() {
		first <- zkrIn(t, dir, ns, "lock", "/m/b", "/m/a", "--", "sh", "-c",
			`echo "$ZKR_FENCING_TOKEN" > token; echo "$ZKR_FENCING_TOKENS" > tokens; touch started1; `+
				`while [ ! -e stop ]; do sleep 0.05; done; touch ended1`)
	}()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "started1"))
		return err == nil
	}, 60*time.Second, 10*time.Millisecond)
	b, err := os.ReadFile(filepath.Join(dir, "tokens"))
	require.NoError(t, err)
	tokens := strings.Fields(string(b))
	require.Len(t, tokens, 2)
	tb, err := strconv.ParseInt(tokens[0], 10, 64)
	require.NoError(t, err)
	ta, err := strconv.ParseInt(tokens[1], 10, 64)
	require.NoError(t, err)
	require.Positive(t, ta)
	require.Positive(t, tb)
	require.NotEqual(t, ta, tb, "a token per lock")
	one, err := os.ReadFile(filepath.Join(dir, "token"))
	require.NoError(t, err)
	require.Equal(t, tokens[0], strings.TrimSpace(string(one)), "ZKR_FENCING_TOKEN is the first path's")

	ctx := ctxT(t, time.Minute)
	c := connect(t, ns)
	for _, p := range []string{"/m/a", "/m/b"} {
		m, err := mutex.New(c, p)
		require.NoError(t, err)
		require.ErrorIs(t, m.TryLock(ctx), zkrecipes.ErrLocked, "%s is held by zkr", p)
	}
	r := zkrIn(t, dir, ns, "lock", "--try", "/m/a", "/m/c", "--", "touch", "ran")
	requireOneLineError(t, r, 1)
	require.Contains(t, r.stderr, "/m/a is held")
	require.NoFileExists(t, filepath.Join(dir, "ran"))

	second := make(chan result, 1)
	go func() {
		second <- zkrIn(t, dir, ns, "lock", "/m/a", "/m/b", "--", "sh", "-c", "test -e ended1")
	}()
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644))
	r1 := <-first
	require.Equal(t, 0, r1.code, r1.stderr)
	r2 := <-second
	require.Equal(t, 0, r2.code, "the second command ran before the first ended: %s", r2.stderr)
	for _, p := range []string{"/m/a", "/m/b", "/m/c"} {
		kids, _, err := c.Children(ctx, p)
		if err == nil {
			require.Empty(t, kids, "left under %s", p)
		}
	}
}

// TestLockSeveralPathsBadInput: a path given twice, or a bad one among
// several, is a usage error (exit 2) and nothing runs.
func TestLockSeveralPathsBadInput(t *testing.T) {
	ns := namespace(t)
	dir := t.TempDir()
	r := zkrIn(t, dir, ns, "lock", "/d/a", "/d/a", "--", "touch", "ran")
	requireOneLineError(t, r, 2)
	require.Contains(t, r.stderr, "twice")
	r = zkrIn(t, dir, ns, "lock", "/d/a", "d/b", "--", "touch", "ran")
	requireOneLineError(t, r, 2)
	r = zkrIn(t, dir, ns, "lock", "--", "touch", "ran")
	requireOneLineError(t, r, 2)
	require.NoFileExists(t, filepath.Join(dir, "ran"))
}
