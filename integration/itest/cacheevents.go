package itest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// CacheEachEvent makes, on c, one cache event of each type, for the
// metrics adapters' tests: a cache of /t started over /t, /t/a and /t/b
// (three NODE_CREATED, then INITIALIZED), /t/a changed (NODE_CHANGED) and
// /t/b deleted (NODE_DELETED). It returns once the cache has published
// all six; the cache is closed when t ends.
func CacheEachEvent(t testing.TB, ctx context.Context, c *client.Client) {
	t.Helper()
	for _, p := range []string{"/t", "/t/a", "/t/b"} {
		if _, err := c.Create(ctx, p, []byte(p), 0); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := cache.New(c, "/t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ch.Close(ctx) })
	events, cancel := ch.Events()
	t.Cleanup(cancel)
	if err := ch.Start(ctx); err != nil { // returns once initialized
		t.Fatal(err)
	}
	if _, err := c.Set(ctx, "/t/a", []byte("a2"), -1); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/t/b", -1); err != nil {
		t.Fatal(err)
	}
	for i := range 6 { // 3 created, initialized, changed, deleted
		Await(t, events, 10*time.Second, "cache event "+strconv.Itoa(i+1))
	}
}
