package integration

import (
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// Helpers shared by every test file of the package. Helpers that only one
// recipe's tests need live in that recipe's *_helpers_test.go file, with its
// prefix (cl, mx, rw, sf).

// pollEvery is how often eventually and waitChildren check their condition.
const pollEvery = itest.PollEvery

// The helpers below are package itest's (shared by every integration test
// package), under the names this package's tests have always used.

func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	itest.Eventually(t, d, what, cond)
}

func children(t testing.TB, c *client.Client, dir string) []string {
	t.Helper()
	return itest.Children(t, c, dir)
}

func tryChildren(c *client.Client, dir string) ([]string, error) { return itest.TryChildren(c, dir) }

func waitChildren(t testing.TB, c *client.Client, dir string, n int) []string {
	t.Helper()
	return itest.WaitChildren(t, c, dir, n)
}

func exists(t testing.TB, c *client.Client, p string) bool {
	t.Helper()
	return itest.Exists(t, c, p)
}

func tryExists(c *client.Client, p string) (bool, error) { return itest.TryExists(c, p) }

func newLink(t testing.TB) *faultlink.Link { return itest.NewLink(t) }

// listings counts the directory listings a client sent through l.
func listings(l *faultlink.Link) int64 {
	return l.Requests(faultlink.OpGetChildren) + l.Requests(faultlink.OpGetChildren2)
}

func closed(ch <-chan struct{}) bool { return itest.Closed(ch) }

func waitClosed(ch <-chan struct{}, d time.Duration) bool { return itest.WaitClosed(ch, d) }

func await[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	return itest.Await(t, ch, d, what)
}

func pending[T any](t testing.TB, ch <-chan T, quiet time.Duration, what string) {
	t.Helper()
	itest.Pending(t, ch, quiet, what)
}
