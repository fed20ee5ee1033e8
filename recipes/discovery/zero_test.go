package discovery_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// TestZeroValues: every method of a zero or nil Discovery, Cache and
// Provider returns an error wrapping ErrInvalidArgument (or nothing) and
// none panics. No server.
func TestZeroValues(t *testing.T) {
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	for _, d := range []*discovery.Discovery{nil, {}} {
		inst := discovery.Instance{Name: "a", ID: "b"}
		check("Register", d.Register(ctx, inst))
		check("Update", d.Update(ctx, inst))
		check("Unregister", d.Unregister(ctx, inst))
		_, err := d.QueryForNames(ctx)
		check("QueryForNames", err)
		_, err = d.QueryForInstances(ctx, "a")
		check("QueryForInstances", err)
		_, err = d.QueryForInstance(ctx, "a", "b")
		check("QueryForInstance", err)
		_, err = d.NewCache("a")
		check("NewCache", err)
		_, err = d.NewProvider("a")
		check("NewProvider", err)
		check("Close", d.Close(ctx))
		require.Empty(t, d.Registered())
		require.Empty(t, d.BasePath())
	}
	for _, ch := range []*discovery.Cache{nil, {}} {
		check("Cache.Start", ch.Start(ctx))
		check("Cache.Close", ch.Close(ctx))
		require.Empty(t, ch.Instances())
		require.Empty(t, ch.Name())
		require.Nil(t, ch.Initialized())
		events, cancel := ch.Events()
		cancel()
		cancel()
		_, ok := <-events
		require.False(t, ok)
	}
	for _, p := range []*discovery.Provider{nil, {}} {
		check("Provider.Start", p.Start(ctx))
		check("Provider.Close", p.Close(ctx))
		_, err := p.GetInstance()
		check("GetInstance", err)
		_, err = p.GetAllInstances()
		check("GetAllInstances", err)
		p.NoteError(discovery.Instance{})
		require.Empty(t, p.Name())
	}
}

// TestNewArguments: bad arguments are refused before any I/O.
func TestNewArguments(t *testing.T) {
	_, err := discovery.New(nil, "/services")
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	require.NoError(t, err)
	defer c.Close()
	for _, p := range []string{"", "services", "/services/", "/a//b", "/zookeeper/x"} {
		_, err := discovery.New(c, p)
		var pe *client.PathError
		require.True(t, errors.Is(err, zkrecipes.ErrInvalidPath) && errors.As(err, &pe), "path %q: %v", p, err)
	}
	_, err = discovery.New(c, "/services", nil)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)

	d, err := discovery.New(c, "/services")
	require.NoError(t, err)
	require.Equal(t, "/services", d.BasePath())
	for _, name := range []string{"", "a/b", ".", "..", "zookeeper\x00"} {
		_, err = d.NewCache(name)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "%q", name)
		_, err = d.NewProvider(name)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "%q", name)
		_, err = d.QueryForInstances(context.Background(), name)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "%q", name)
	}
	for _, opt := range []discovery.ProviderOption{nil, discovery.WithStrategy(nil), discovery.WithFilter(nil),
		discovery.WithDownInstancePolicy(discovery.DownInstancePolicy{}),
		discovery.WithDownInstancePolicy(discovery.DownInstancePolicy{Timeout: 1, ErrorThreshold: 0})} {
		_, err = d.NewProvider("a", opt)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	}
}

// TestValidate: what Register refuses, as an *InstanceError naming the
// field. No server.
func TestValidate(t *testing.T) {
	good := discovery.NewInstance("api")
	require.NoError(t, good.Validate())
	require.NotEmpty(t, good.ID)
	require.NotZero(t, good.RegistrationTimeUTC)
	cases := map[string]func(*discovery.Instance){
		"name":        func(i *discovery.Instance) { i.Name = "" },
		"id":          func(i *discovery.Instance) { i.ID = "" },
		"port":        func(i *discovery.Instance) { i.Port = 70000 },
		"sslPort":     func(i *discovery.Instance) { i.SSLPort = -1 },
		"serviceType": func(i *discovery.Instance) { i.ServiceType = "dynamic" },
		"payload":     func(i *discovery.Instance) { i.Payload = []byte("{") },
	}
	for field, spoil := range cases {
		inst := good
		spoil(&inst)
		err := inst.Validate()
		var ie *discovery.InstanceError
		require.True(t, errors.Is(err, discovery.ErrInvalidInstance) && errors.As(err, &ie), "%s: %v", field, err)
		require.Equal(t, field, ie.Field)
	}
	for _, bad := range []string{"a/b", ".", "..", "x\x00y", "zookeeper/x"} {
		inst := good
		inst.ID = bad
		require.ErrorIs(t, inst.Validate(), discovery.ErrInvalidInstance, "id %q", bad)
		inst = good
		inst.Name = bad
		require.ErrorIs(t, inst.Validate(), discovery.ErrInvalidInstance, "name %q", bad)
	}
	// "zookeeper" is a fine name below a base path.
	inst := good
	inst.Name = "zookeeper"
	require.NoError(t, inst.Validate())
}
