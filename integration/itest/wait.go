package itest

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
)

// PollEvery is how often Eventually and WaitChildren check their condition.
const PollEvery = 20 * time.Millisecond

// Eventually checks cond on the test's own goroutine, at once and then every
// PollEvery, until it reports true; it fails the test with what when d passes
// first. cond may call require: a failed check there ends the test at once.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			require.FailNowf(t, "condition not met", "%s: not within %v", what, d)
		}
		time.Sleep(PollEvery)
	}
}

// Children lists dir's children in name order, as c sees them; a missing
// dir has none. It fails the test on any other error.
func Children(t testing.TB, c *client.Client, dir string) []string {
	t.Helper()
	kids, err := TryChildren(c, dir)
	require.NoError(t, err)
	return kids
}

// TryChildren is Children returning its error instead of failing the test.
func TryChildren(c *client.Client, dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kids, _, err := c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	slices.Sort(kids)
	return kids, err
}

// WaitChildren waits until dir has exactly n children, as c sees them, and
// returns them in name order.
func WaitChildren(t testing.TB, c *client.Client, dir string, n int) []string {
	t.Helper()
	var kids []string
	Eventually(t, 10*time.Second, fmt.Sprintf("waiting for %d nodes in %s", n, dir), func() bool {
		kids = Children(t, c, dir)
		return len(kids) == n
	})
	return kids
}

// Exists reports whether p exists, as c sees it, failing the test on error.
func Exists(t testing.TB, c *client.Client, p string) bool {
	t.Helper()
	ok, err := TryExists(c, p)
	require.NoError(t, err)
	return ok
}

// TryExists is Exists returning its error instead of failing the test.
func TryExists(c *client.Client, p string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, _, err := c.Exists(ctx, p)
	return ok, err
}

// WaitState waits up to d for the state want on states (a subscription of
// a client's state changes), of session sid unless sid is 0, skipping the
// others, and returns it. It fails the test when none comes or the
// subscription closes first.
func WaitState(t testing.TB, states <-chan client.StateChange, want client.State, sid int64, d time.Duration) client.StateChange {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-states:
			require.True(t, ok, "state subscription closed")
			if ev.State == want && (sid == 0 || ev.SessionID == sid) {
				return ev
			}
		case <-deadline:
			require.FailNowf(t, "no state change", "no %v within %v", want, d)
			return client.StateChange{}
		}
	}
}

// Closed reports whether ch is closed, without waiting.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// WaitClosed waits up to d for ch to close and reports whether it did.
func WaitClosed(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// Await waits up to d for a value on ch (the result of a call running on a
// goroutine of its own), failing the test if none comes.
func Await[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
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

// Pending requires that nothing arrives on ch for quiet: the call behind ch
// still waits. With quiet 0 it only checks that nothing has arrived yet. A
// quiet period only ever makes a passing test slower, never a failing one
// pass.
func Pending[T any](t testing.TB, ch <-chan T, quiet time.Duration, what string) {
	t.Helper()
	var v T
	var early bool
	if quiet <= 0 {
		select {
		case v = <-ch:
			early = true
		default:
		}
	} else {
		select {
		case v = <-ch:
			early = true
		case <-time.After(quiet):
		}
	}
	if early {
		require.FailNowf(t, "returned early", "%s returned early (%+v) although it should still wait", what, v)
	}
}
