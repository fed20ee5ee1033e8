package cacheit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// TestCacheUseAfterClose: a started cache, closed, answers every call with
// its typed error (Start twice: ErrAlreadyStarted; after Close: ErrClosed
// from Start, a closed channel from Events, an empty view), which says the
// cache is closed, not the client; and a second Close returns the first
// one's result.
func TestCacheUseAfterClose(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "x")
	ch, rec := startCache(t, r.c, "/test")
	requireSays(t, ch.Start(r.ctx), zkrecipes.ErrAlreadyStarted, "zkrecipes: cache is already started")
	rec.next(t, "NODE_CREATED /test=x", "INITIALIZED")

	require.NoError(t, ch.Close(r.ctx))
	require.NoError(t, ch.Close(r.ctx))
	requireSays(t, ch.Start(r.ctx), zkrecipes.ErrClosed, "zkrecipes: cache is closed")
	events, cancel := ch.Events()
	cancel()
	_, ok := <-events
	require.False(t, ok, "Events after Close")
	_, ok = ch.Get("/test")
	require.False(t, ok)
	require.Zero(t, ch.Len())
}

// TestCacheClientClosed: when the client closes under a started cache,
// its subscriptions' channels close, a later Events gives a closed channel
// and Close returns nil; a Start still waiting for the first load when its
// client closes returns ErrClosed, saying that the client is closed, not
// the cache.
func TestCacheClientClosed(t *testing.T) {
	r := newRig(t, nil)
	r.create("/test", "x")
	c := itest.Connect(t, shared, itest.Opts{NS: r.ns})
	ch, err := cache.New(c, "/test")
	require.NoError(t, err)
	events, cancel := ch.Events()
	defer cancel()
	require.NoError(t, ch.Start(r.ctx))
	defer ch.Close(r.ctx)
	require.NoError(t, c.Close())
	for range events { // closed once the loop ended
	}
	for range 3 {
		later, stop := ch.Events()
		_, ok := <-later
		require.False(t, ok, "Events after the client closed")
		stop()
	}
	requireSays(t, ch.Start(r.ctx), zkrecipes.ErrAlreadyStarted, "zkrecipes: cache is already started")
	require.NoError(t, ch.Close(r.ctx))

	// A client with no server: the load cannot finish before it closes.
	never, err := client.New(client.WithServers("127.0.0.1:1"))
	require.NoError(t, err)
	defer never.Close()
	waiting, err := cache.New(never, "/test")
	require.NoError(t, err)
	defer waiting.Close(r.ctx)
	started := make(chan error, 1)
	go func() { started <- waiting.Start(r.ctx) }()
	itest.Pending(t, started, 300*time.Millisecond, "Start without a server")
	require.NoError(t, never.Close())
	err = itest.Await(t, started, 10*time.Second, "Start once the client closed")
	requireSays(t, err, zkrecipes.ErrClosed, "zkrecipes: client is closed")
	require.False(t, itest.Closed(waiting.Initialized()), "Initialized without a load")
}

// TestCacheCreatesNothing: the cache only reads. Through its whole life,
// on a root that is missing, then made, then deleted, across a reconnect
// and a session expiry, its client sends no request that writes, and the
// root's parents are never made; once the root is deleted nothing is left.
func TestCacheCreatesNothing(t *testing.T) {
	r, cc, st, _ := linked(t, nil, 1500*time.Millisecond)
	ch, rec := startCache(t, cc, "/a/b/root")
	rec.next(t, "INITIALIZED")
	require.False(t, itest.Exists(t, r.c, "/a"))
	_, err := r.c.Create(r.ctx, "/a/b/root", nil, 0, client.WithParents()) // its parents are containers
	require.NoError(t, err)
	r.create("/a/b/root/kid", "k")
	rec.next(t, "NODE_CREATED /a/b/root=", "NODE_CREATED /a/b/root/kid=k")
	r.link.Cut()
	st.await(t, client.StateSuspended, 10*time.Second)
	r.link.Restore()
	expire(t, r.link, st, func() { r.del("/a/b/root/kid") })
	rec.next(t, "NODE_DELETED /a/b/root/kid=k")
	r.del("/a/b/root")
	rec.next(t, "NODE_DELETED /a/b/root=")
	require.NoError(t, ch.Close(r.ctx))
	require.Zero(t, writes(r.link), "requests that write")
	// Nothing is left: the containers go once empty.
	itest.Eventually(t, 15*time.Second, "/a reaped", func() bool { return !itest.Exists(t, r.c, "/a") })
}

// requireSays requires err to match sentinel and to say msg: what is
// closed or not started, the recipe or its client.
func requireSays(t *testing.T, err, sentinel error, msg string) {
	t.Helper()
	require.ErrorIs(t, err, sentinel)
	require.ErrorContains(t, err, msg)
}

// TestCacheCloseRemovesItsWatch: a whole-subtree cache sets one persistent
// recursive watch and no other (its reads set none); once it is closed the
// server sends its client nothing for a change under the root (the client's
// NodeEvents carries every notification it gets).
func TestCacheCloseRemovesItsWatch(t *testing.T) {
	r := newRig(t, nil)
	r.create("/w", "")
	r.create("/w/a", "1")
	ch, rec := startCache(t, r.c, "/w")
	rec.take(t, 3)
	all, stop, err := r.c.NodeEvents("/")
	require.NoError(t, err)
	defer stop()
	r.set("/w/a", "2")
	itest.Await(t, all, 5*time.Second, "the change's notification while the cache is open")
	require.NoError(t, ch.Close(r.ctx))
	r.set("/w/a", "3")
	r.create("/w/b", "")
	itest.Pending(t, all, 300*time.Millisecond, "a notification after the cache's Close")
}
