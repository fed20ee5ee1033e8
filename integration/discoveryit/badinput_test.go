package discoveryit

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// TestBadInstances: instances without a name or id, with a name or id
// that is no node name, a bad port, type or payload are refused with an
// *InstanceError, and nothing is left on the server.
func TestBadInstances(t *testing.T) {
	c, ctx, d := onShared(t)
	good := instance("test", "i1", 1, "")
	spoil := map[string]func(*discovery.Instance){
		"no name":       func(i *discovery.Instance) { i.Name = "" },
		"no id":         func(i *discovery.Instance) { i.ID = "" },
		"name a/b":      func(i *discovery.Instance) { i.Name = "a/b" },
		"id ..":         func(i *discovery.Instance) { i.ID = ".." },
		"port":          func(i *discovery.Instance) { i.Port = 65536 },
		"type":          func(i *discovery.Instance) { i.ServiceType = "EPHEMERAL" },
		"payload":       func(i *discovery.Instance) { i.Payload = json.RawMessage(`{"a":`) },
		"disabled":      func(i *discovery.Instance) { i.Disabled = true }, // needs WithEnabledField
		"nul character": func(i *discovery.Instance) { i.ID = "a\x00" },
	}
	for what, f := range spoil {
		inst := good
		f(&inst)
		err := d.Register(ctx, inst)
		var ie *discovery.InstanceError
		require.True(t, errors.Is(err, discovery.ErrInvalidInstance) && errors.As(err, &ie), "%s: %v", what, err)
	}
	require.Empty(t, d.Registered())
	require.False(t, itest.Exists(t, c, base), "nothing on the server")
	require.Empty(t, itest.Children(t, c, "/"))
}

// TestUseAfterClose: after Close every call returns ErrClosed, caches and
// providers made before are closed, and the instances are gone; closing
// the client under a Discovery ends its calls with ErrClosed too. Each
// error says what is closed (or, before Start, not started): the
// Discovery, the provider, the cache or the client.
func TestUseAfterClose(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 30*time.Second)
	d, err := discovery.New(c, base)
	require.NoError(t, err)
	inst := instance("test", "i1", 1, "")
	require.NoError(t, d.Register(ctx, inst))
	p, err := d.NewProvider("test")
	require.NoError(t, err)
	_, err = p.GetInstance()
	requireSays(t, err, zkrecipes.ErrNotStarted, "zkrecipes: service provider is not started")
	require.NoError(t, p.Start(ctx))
	ch, err := d.NewCache("test")
	require.NoError(t, err) // never started
	events, _ := ch.Events()

	require.NoError(t, d.Close(ctx))
	require.NoError(t, d.Close(ctx))
	require.Empty(t, itest.Children(t, c, base+"/test"))
	const (
		dClosed = "zkrecipes: service discovery is closed"
		pClosed = "zkrecipes: service provider is closed"
		cClosed = "zkrecipes: service cache is closed"
	)
	requireSays(t, d.Register(ctx, inst), zkrecipes.ErrClosed, dClosed)
	requireSays(t, d.Update(ctx, inst), zkrecipes.ErrClosed, dClosed)
	requireSays(t, d.Unregister(ctx, inst), zkrecipes.ErrClosed, dClosed)
	_, err = d.QueryForNames(ctx)
	requireSays(t, err, zkrecipes.ErrClosed, dClosed)
	_, err = d.QueryForInstances(ctx, "test")
	requireSays(t, err, zkrecipes.ErrClosed, dClosed)
	_, err = d.QueryForInstance(ctx, "test", "i1")
	requireSays(t, err, zkrecipes.ErrClosed, dClosed)
	_, err = d.NewCache("test")
	requireSays(t, err, zkrecipes.ErrClosed, dClosed)
	_, err = d.NewProvider("test")
	requireSays(t, err, zkrecipes.ErrClosed, dClosed)
	_, err = p.GetInstance()
	requireSays(t, err, zkrecipes.ErrClosed, pClosed)
	_, err = p.GetAllInstances()
	requireSays(t, err, zkrecipes.ErrClosed, pClosed)
	requireSays(t, p.Start(ctx), zkrecipes.ErrClosed, pClosed)
	requireSays(t, ch.Start(ctx), zkrecipes.ErrClosed, cClosed)
	later, stop := ch.Events()
	_, ok := <-later
	require.False(t, ok, "Events of a closed cache")
	stop()
	_, ok = <-events
	require.False(t, ok, "a closed cache's subscription is closed")
	require.Empty(t, d.Registered())

	// The client closed under a live Discovery and provider.
	c2 := itest.Connect(t, shared, itest.Opts{NS: ns})
	d2 := newDiscovery(t, c2)
	require.NoError(t, d2.Register(ctx, inst))
	p2, err := d2.NewProvider("test")
	require.NoError(t, err)
	require.NoError(t, p2.Start(ctx))
	require.NoError(t, c2.Close())
	requireSays(t, d2.Register(ctx, instance("test", "i2", 1, "")), zkrecipes.ErrClosed, "zkrecipes: client is closed")
	itest.Eventually(t, 10*time.Second, "the provider ends with the client", func() bool {
		_, err := p2.GetAllInstances()
		return errors.Is(err, zkrecipes.ErrClosed)
	})
	_, err = p2.GetAllInstances()
	requireSays(t, err, zkrecipes.ErrClosed, "zkrecipes: client is closed")
	require.Empty(t, itest.Children(t, c, base+"/test"), "the closed session's instance is gone")
}

// requireSays requires err to match sentinel and to say msg: what is
// closed or not started, the recipe or its client.
func requireSays(t *testing.T, err, sentinel error, msg string) {
	t.Helper()
	require.ErrorIs(t, err, sentinel)
	require.ErrorContains(t, err, msg)
}
