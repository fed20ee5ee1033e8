package discoveryit

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
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
// the client under a Discovery ends its calls with ErrClosed too.
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
	require.NoError(t, p.Start(ctx))
	ch, err := d.NewCache("test")
	require.NoError(t, err) // never started
	events, _ := ch.Events()

	require.NoError(t, d.Close(ctx))
	require.NoError(t, d.Close(ctx))
	require.Empty(t, itest.Children(t, c, base+"/test"))
	require.ErrorIs(t, d.Register(ctx, inst), discovery.ErrClosed)
	require.ErrorIs(t, d.Update(ctx, inst), discovery.ErrClosed)
	require.ErrorIs(t, d.Unregister(ctx, inst), discovery.ErrClosed)
	_, err = d.QueryForNames(ctx)
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, err = d.QueryForInstances(ctx, "test")
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, err = d.QueryForInstance(ctx, "test", "i1")
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, err = d.NewCache("test")
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, err = d.NewProvider("test")
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, err = p.GetInstance()
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, err = p.GetAllInstances()
	require.ErrorIs(t, err, discovery.ErrClosed)
	require.ErrorIs(t, p.Start(ctx), discovery.ErrClosed)
	require.ErrorIs(t, ch.Start(ctx), discovery.ErrClosed)
	_, err = ch.Listen(func(discovery.Event) {})
	require.ErrorIs(t, err, discovery.ErrClosed)
	_, ok := <-events
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
	require.ErrorIs(t, d2.Register(ctx, instance("test", "i2", 1, "")), client.ErrClosed)
	itest.Eventually(t, 10*time.Second, "the provider ends with the client", func() bool {
		_, err := p2.GetAllInstances()
		return errors.Is(err, discovery.ErrClosed)
	})
	require.Empty(t, itest.Children(t, c, base+"/test"), "the closed session's instance is gone")
}
