package discoveryit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// closeWithin is how long a call that must not wait for the server (a
// Close without a connection, a Close from a subscriber) may take.
const closeWithin = 3 * time.Second

// closeInBackground calls d.Close(context.Background()) on a goroutine of
// its own and returns its result, failing the test when Close has not
// returned within closeWithin.
func closeInBackground(t *testing.T, d *discovery.Discovery) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- d.Close(context.Background()) }()
	return itest.Await(t, res, closeWithin, "Close(context.Background()) without a connection")
}

// TestServiceDiscoveryCloseSessionLost: a Discovery whose client's link is
// blackholed until the session is Lost closes at once with nil: its
// instance's ephemeral node went with the session, nothing is left to
// delete. The server expires the session: nothing is left.
func TestServiceDiscoveryCloseSessionLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: 2 * time.Second})
	watcher := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, time.Minute)
	d := newDiscovery(t, c)
	require.NoError(t, d.Register(ctx, instance("api", "i1", 8080, "")))
	p, err := d.NewProvider("api")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	require.Equal(t, []string{"i1"}, itest.Children(t, watcher, base+"/api"))
	states, unsub := c.Subscribe()
	defer unsub()
	sess := c.Session()

	link.Blackhole()
	itest.WaitState(t, states, client.StateLost, sess.ID(), 20*time.Second)
	require.NoError(t, closeInBackground(t, d), "the instance's node went with its session")
	link.Restore()
	itest.Eventually(t, 20*time.Second, "nothing left once the server expired the session", func() bool {
		kids, err := itest.TryChildren(watcher, base+"/api")
		return err == nil && len(kids) == 0 && c.PendingDeletes() == 0
	})
}

// TestServiceDiscoveryCloseSuspended: a Discovery whose client's link is
// cut (Suspended, the session alive) closes within a second or so with
// ErrDeletePending; once the link is back, in the same session, the
// guaranteed delete removes the instance's node.
func TestServiceDiscoveryCloseSuspended(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: 20 * time.Second})
	watcher := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, time.Minute)
	d := newDiscovery(t, c)
	require.NoError(t, d.Register(ctx, instance("api", "i1", 8080, "")))
	states, unsub := c.Subscribe()
	defer unsub()
	sess := c.Session()

	link.Cut()
	itest.WaitState(t, states, client.StateSuspended, sess.ID(), 10*time.Second)
	require.ErrorIs(t, closeInBackground(t, d), zkrecipes.ErrDeletePending, "the session lives: the delete is pending")
	require.Equal(t, []string{"i1"}, itest.Children(t, watcher, base+"/api"), "the node went while cut")
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, sess.ID(), 20*time.Second)
	itest.Eventually(t, 10*time.Second, "the pending delete runs once the session's connection is back", func() bool {
		kids, err := itest.TryChildren(watcher, base+"/api")
		return err == nil && len(kids) == 0 && c.PendingDeletes() == 0
	})
	require.Same(t, sess, c.Session(), "the session survived")
}

// TestServiceCacheStartClientClosedAfterLoad loops the race of a client
// that closes right after a cache's load: the client closes once the node
// cache's load is done, before its Initialized event is handed on (a
// cache hook holds it back meanwhile). Start's documented outcome is one:
// the client closed before Start returned, so Start returns ErrClosed (the
// client's), every time; and the cache says so from then on (Instances is
// empty, Events gives a closed channel).
func TestServiceCacheStartClientClosedAfterLoad(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	owner := itest.Connect(t, shared, itest.Opts{NS: ns})
	require.NoError(t, newDiscovery(t, owner).Register(ctx, instance("svc", "i1", 8080, "")))

	for i := range 30 {
		loaded := make(chan struct{}, 1)
		release := make(chan struct{})
		hooks := &client.Hooks{CacheEvent: func(e client.CacheEventHook) {
			if e.Type != "INITIALIZED" || e.Root != base+"/svc" {
				return
			}
			loaded <- struct{}{}
			select { // until the client is closed (bounded: never hang a failing test)
			case <-release:
			case <-time.After(10 * time.Second):
			}
		}}
		c := itest.Connect(t, shared, itest.Opts{NS: ns, Extra: []client.Option{client.WithHooks(hooks)}})
		d, err := discovery.New(c, base)
		require.NoError(t, err)
		ch, err := d.NewCache("svc")
		require.NoError(t, err)
		res := make(chan error, 1)
		go func() { res <- ch.Start(ctx) }()
		itest.Await(t, loaded, 20*time.Second, "the node cache's load")
		require.NoError(t, c.Close())
		close(release)
		err = itest.Await(t, res, 10*time.Second, "Start")
		require.ErrorIs(t, err, zkrecipes.ErrClosed, "iteration %d: the client closed before Start returned", i)
		require.ErrorContains(t, err, "client is closed", "iteration %d: the client's error, not the cache's", i)
		require.Empty(t, ch.Instances(), "iteration %d: a cache whose client closed shows nothing", i)
		events, stop := ch.Events()
		_, ok := <-events
		require.False(t, ok, "iteration %d: Events once the client closed", i)
		stop()
		require.NoError(t, ch.Close(ctx))
		require.NoError(t, d.Close(ctx))
	}
}

// TestServiceCacheCloseFromSubscriber: a subscriber may close the cache (or
// the Discovery) from the goroutine that reads its events: Close returns
// without waiting for any subscriber to read (another one reads nothing
// meanwhile), closes every subscription's channel, and leaves no goroutine
// behind.
func TestServiceCacheCloseFromSubscriber(t *testing.T) {
	for _, closeDiscovery := range []bool{false, true} {
		name := "Cache.Close"
		if closeDiscovery {
			name = "Discovery.Close"
		}
		t.Run(name, func(t *testing.T) {
			c, ctx, d := onShared(t)
			require.NoError(t, d.Register(ctx, instance("svc", "i1", 8080, "")))
			ch, err := d.NewCache("svc")
			require.NoError(t, err)

			// The other subscriber reads nothing until Close has returned.
			idle, stopIdle := ch.Events()
			defer stopIdle()

			// The closing subscriber: on Initialized, once Start has
			// returned (a Close before would make Start fail, rightly).
			started := make(chan struct{})
			closed := make(chan error, 1)
			events, stop := ch.Events()
			defer stop()
			go func() {
				for ev := range events {
					if ev.Type != discovery.Initialized {
						continue
					}
					select {
					case <-started:
					case <-time.After(10 * time.Second):
					}
					if closeDiscovery {
						closed <- d.Close(context.Background())
					} else {
						closed <- ch.Close(context.Background())
					}
				}
			}()
			require.NoError(t, ch.Start(ctx))
			close(started)
			require.NoError(t, itest.Await(t, closed, closeWithin, "Close called from a subscriber"))
			for range idle { // closed by Close (what was queued may be dropped)
			}
			requireSays(t, ch.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: service cache is closed")
			if closeDiscovery {
				itest.Eventually(t, 10*time.Second, "the instance unregistered", func() bool {
					kids, err := itest.TryChildren(c, base+"/svc")
					return err == nil && len(kids) == 0
				})
			}
		})
	}
}
