package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zkharness/faultlink"
)

// Helpers shared by every test file of the package. Helpers that only one
// recipe's tests need live in that recipe's *_helpers_test.go file, with its
// prefix (cl, mx, rw, sf).

// pollEvery is how often eventually and waitChildren check their condition.
const pollEvery = 20 * time.Millisecond

// eventually checks cond on the test's own goroutine, at once and then every
// pollEvery, until it reports true; it fails the test with what when d passes
// first. cond may call require (children, exists...): a failed check there
// ends the test at once. For a condition that only reads memory, prefer
// require.Eventually, which runs it on a goroutine of its own.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			require.FailNowf(t, "condition not met", "%s: not within %v", what, d)
		}
		time.Sleep(pollEvery)
	}
}

// children lists dir's children in name order, as c sees them; a missing
// dir has none. It fails the test on any other error.
func children(t testing.TB, c *client.Client, dir string) []string {
	t.Helper()
	kids, err := tryChildren(c, dir)
	require.NoError(t, err)
	return kids
}

// tryChildren is children returning its error instead of failing the test.
func tryChildren(c *client.Client, dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kids, _, err := c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	slices.Sort(kids)
	return kids, err
}

// waitChildren waits until dir has exactly n children, as c sees them, and
// returns them in name order.
func waitChildren(t testing.TB, c *client.Client, dir string, n int) []string {
	t.Helper()
	var kids []string
	eventually(t, 10*time.Second, fmt.Sprintf("waiting for %d nodes in %s", n, dir), func() bool {
		kids = children(t, c, dir)
		return len(kids) == n
	})
	return kids
}

// exists reports whether p exists, as c sees it, failing the test on error.
func exists(t testing.TB, c *client.Client, p string) bool {
	t.Helper()
	ok, err := tryExists(c, p)
	require.NoError(t, err)
	return ok
}

// tryExists is exists returning its error instead of failing the test.
func tryExists(c *client.Client, p string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, _, err := c.Exists(ctx, p)
	return ok, err
}

// newLink returns a fault-injecting link that is closed at cleanup. Call it
// before connect, so that the client (closed by a cleanup registered later,
// hence run earlier) is closed first.
func newLink(t testing.TB) *faultlink.Link {
	l := faultlink.New()
	t.Cleanup(l.Close)
	return l
}

// listings counts the directory listings a client sent through l.
func listings(l *faultlink.Link) int64 {
	return l.Requests(faultlink.OpGetChildren) + l.Requests(faultlink.OpGetChildren2)
}

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitClosed waits up to d for ch to close and reports whether it did.
func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// await waits up to d for a value on ch (the result of a call running on a
// goroutine of its own), failing the test if none comes.
func await[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		require.FailNowf(t, "no result", "%s: no result within %v", what, d)
		var zero T
		return zero
	}
}

// pending requires that nothing arrives on ch for quiet: the call behind ch
// still waits. With quiet 0 it only checks that nothing has arrived yet. A
// quiet period only ever makes a passing test slower, never a failing one
// pass.
func pending[T any](t testing.TB, ch <-chan T, quiet time.Duration, what string) {
	t.Helper()
	if quiet <= 0 {
		select {
		case v := <-ch:
			require.FailNowf(t, "returned early", "%s returned early (%+v) although it should still wait", what, v)
		default:
		}
		return
	}
	select {
	case v := <-ch:
		require.FailNowf(t, "returned early", "%s returned early (%+v) although it should still wait", what, v)
	case <-time.After(quiet):
	}
}
