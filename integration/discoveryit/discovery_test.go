package discoveryit

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// Ports of curator-x-discovery's TestServiceDiscovery.

// TestServiceDiscoveryBasic ports testBasic: one registered instance is
// the one name and the one instance the queries return.
func TestServiceDiscoveryBasic(t *testing.T) {
	c, ctx, d := onShared(t)
	inst := instance("test", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))

	names, err := d.QueryForNames(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"test"}, names)
	requireSame(t, []discovery.Instance{inst}, query(t, d, "test"))
	got, err := d.QueryForInstance(ctx, "test", "i1")
	require.NoError(t, err)
	require.True(t, inst.Equal(got))
	_, err = d.QueryForInstance(ctx, "test", "nope")
	require.ErrorIs(t, err, discovery.ErrNotFound)

	// The layout: an ephemeral node at base/name/id holding Curator's JSON.
	data, st, err := c.Get(ctx, base+"/test/i1")
	require.NoError(t, err)
	require.NotZero(t, st.EphemeralOwner)
	want, _ := discovery.Marshal(inst)
	require.Equal(t, string(want), string(data))
	require.Equal(t, []discovery.Instance{inst}, d.Registered())
}

// TestServiceDiscoveryMultipleInstances ports testMultipleInstances: two
// services with two instances each.
func TestServiceDiscoveryMultipleInstances(t *testing.T) {
	_, ctx, d := onShared(t)
	s1i1, s1i2 := discovery.NewInstance("one"), discovery.NewInstance("one")
	s2i1, s2i2 := discovery.NewInstance("two"), discovery.NewInstance("two")
	for _, i := range []discovery.Instance{s1i1, s1i2, s2i1, s2i2} {
		require.NoError(t, d.Register(ctx, i))
	}
	names, err := d.QueryForNames(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"one", "two"}, names)
	requireSame(t, []discovery.Instance{s1i1, s1i2}, query(t, d, "one"))
	requireSame(t, []discovery.Instance{s2i1, s2i2}, query(t, d, "two"))
	require.Empty(t, query(t, d, "three"))
}

// TestServiceDiscoveryCleaning ports testCleaning: an unregistered
// instance is neither kept nor on the server, and the service's container
// goes with its last instance.
func TestServiceDiscoveryCleaning(t *testing.T) {
	c, ctx, d := onShared(t)
	inst := instance("test", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))
	require.NoError(t, d.Unregister(ctx, inst))
	require.Empty(t, d.Registered())
	require.Empty(t, itest.Children(t, c, base+"/test"))
	require.ErrorIs(t, d.Unregister(ctx, inst), discovery.ErrNotRegistered)
	require.ErrorIs(t, d.Update(ctx, inst), discovery.ErrNotRegistered)
	itest.Eventually(t, 10*time.Second, "the containers reaped", func() bool { return !itest.Exists(t, c, base) })
}

// TestServiceDiscoveryUpdate: Update writes the new data in place (same
// node); Register of a registered id updates it; a changed name or type is
// refused.
func TestServiceDiscoveryUpdate(t *testing.T) {
	c, ctx, d := onShared(t)
	inst := instance("test", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))
	_, st, err := c.Get(ctx, base+"/test/i1")
	require.NoError(t, err)

	inst.Payload = []byte(`"changed"`)
	require.NoError(t, d.Update(ctx, inst))
	got, err := d.QueryForInstance(ctx, "test", "i1")
	require.NoError(t, err)
	require.Equal(t, `"changed"`, string(got.Payload))
	inst.Port = 10065
	require.NoError(t, d.Register(ctx, inst))
	_, st2, err := c.Get(ctx, base+"/test/i1")
	require.NoError(t, err)
	require.Equal(t, st.Czxid, st2.Czxid, "updated in place")
	require.Equal(t, int32(2), st2.Version)

	moved := inst
	moved.Name = "other"
	require.ErrorIs(t, d.Update(ctx, moved), discovery.ErrInvalidInstance)
	require.ErrorIs(t, d.Register(ctx, moved), discovery.ErrInvalidInstance)
	static := inst
	static.ServiceType = discovery.Static
	require.ErrorIs(t, d.Update(ctx, static), discovery.ErrInvalidInstance)
	require.Equal(t, []string{"test"}, must(d.QueryForNames(ctx)))
}

// TestServiceDiscoveryServiceTypes: Dynamic is ephemeral at base/name/id,
// DynamicSequential ephemeral with a sequence number, Static and Permanent
// persistent; Close deletes them all, as Curator's close does.
func TestServiceDiscoveryServiceTypes(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	d, err := discovery.New(c, base)
	require.NoError(t, err)
	types := map[string]discovery.ServiceType{"dyn": discovery.Dynamic, "seq": discovery.DynamicSequential,
		"static": discovery.Static, "perm": discovery.Permanent, "none": ""}
	for id, typ := range types {
		inst := instance("svc", id, 1, "")
		inst.ServiceType = typ
		require.NoError(t, d.Register(ctx, inst))
	}
	kids := itest.Children(t, c, base+"/svc")
	require.Len(t, kids, 5)
	for _, k := range kids {
		data, st, err := c.Get(ctx, base+"/svc/"+k)
		require.NoError(t, err)
		inst, err := discovery.Unmarshal(data)
		require.NoError(t, err)
		switch inst.ID {
		case "seq":
			require.Regexp(t, `^_c_[0-9a-f-]{36}-seq\d{10}$`, k)
		default:
			require.Equal(t, inst.ID, k)
		}
		require.Equal(t, inst.ServiceType.IsDynamic(), st.EphemeralOwner != 0, k)
	}
	require.Equal(t, discovery.Dynamic, must(d.QueryForInstance(ctx, "svc", "none")).ServiceType)
	require.Len(t, query(t, d, "svc"), 5)
	require.NoError(t, d.Close(ctx))
	require.Empty(t, itest.Children(t, c, base+"/svc"))
	require.NoError(t, d.Close(ctx), "Close is idempotent")
}

// TestServiceDiscoveryCrashedServer ports testCrashedServer and
// testCrashedServerMultiInstances: the session expires while the server is
// down; once it is back the instances are registered again.
func TestServiceDiscoveryCrashedServer(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: time.Second})
	watcher := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 10 * time.Second})
	ctx := itest.Ctx(t, time.Minute)
	d := newDiscovery(t, c)
	i1, i2 := instance("test", "i1", 10064, "thing"), instance("test", "i2", 10065, "thing")
	require.NoError(t, d.Register(ctx, i1))
	require.NoError(t, d.Register(ctx, i2))
	owner := ownerOf(t, watcher, base+"/test/i1")

	states, cancel := c.Subscribe()
	defer cancel()
	require.NoError(t, cl.StopServer(ctx, 0))
	itest.WaitState(t, states, client.StateLost, 0, 20*time.Second) // the client gives the session up
	require.NoError(t, cl.StartServer(ctx, 0))
	itest.Eventually(t, 30*time.Second, "both instances registered again in a new session", func() bool {
		kids, err := itest.TryChildren(watcher, base+"/test")
		if err != nil || len(kids) != 2 {
			return false
		}
		for _, k := range kids {
			if o, ok := tryOwner(watcher, base+"/test/"+k); !ok || o == owner {
				return false
			}
		}
		return true
	})
	requireSame(t, []discovery.Instance{i1, i2}, query(t, d, "test"))
}

// TestServiceDiscoveryNoServerOnStart ports testNoServerOnStart: Register
// while the server is down waits, and succeeds once it is back.
func TestServiceDiscoveryNoServerOnStart(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t)
	pol, err := retry.UntilElapsed(60*time.Second, 100*time.Millisecond)
	require.NoError(t, err)
	c := itest.Connect(t, cl, itest.Opts{NS: itest.Namespace(t), Timeout: 10 * time.Second,
		Extra: []client.Option{client.WithRetryPolicy(pol)}})
	ctx := itest.Ctx(t, time.Minute)
	d := newDiscovery(t, c)
	require.NoError(t, cl.StopServer(ctx, 0))
	inst := instance("test", "i1", 10064, "thing")
	done := make(chan error, 1)
	go func() { done <- d.Register(ctx, inst) }()
	itest.Pending(t, done, 500*time.Millisecond, "Register without a server")
	require.NoError(t, cl.StartServer(ctx, 0))
	require.NoError(t, itest.Await(t, done, 40*time.Second, "Register"))
	names, err := d.QueryForNames(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"test"}, names)
	requireSame(t, []discovery.Instance{inst}, query(t, d, "test"))
}

// TestServiceDiscoveryUnregisterService ports testUnregisterService
// (CURATOR-164): an instance unregistered while its registration is being
// renewed after a server restart stays unregistered.
func TestServiceDiscoveryUnregisterService(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: time.Second})
	watcher := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 10 * time.Second})
	ctx := itest.Ctx(t, time.Minute)
	d := newDiscovery(t, c)
	inst := instance("name", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))
	require.NotEmpty(t, query(t, d, "name"))

	states, cancel := c.Subscribe()
	defer cancel()
	require.NoError(t, cl.StopServer(ctx, 0))
	itest.WaitState(t, states, client.StateLost, 0, 20*time.Second)
	require.NoError(t, cl.StartServer(ctx, 0))
	itest.WaitState(t, states, client.StateReconnected, 0, 30*time.Second)
	// Unregister races the re-registration the new session starts.
	require.NoError(t, d.Unregister(ctx, inst))
	for range 20 {
		require.Empty(t, itest.Children(t, watcher, base+"/name"), "the instance came back")
		time.Sleep(50 * time.Millisecond)
	}
	require.Empty(t, query(t, d, "name"))
}

func must[T any](v T, _ ...any) T { return v }

// ownerOf is the ephemeral owner of the node at p.
func ownerOf(t *testing.T, c *client.Client, p string) int64 {
	t.Helper()
	o, ok := tryOwner(c, p)
	require.True(t, ok, "no node %s", p)
	return o
}

func tryOwner(c *client.Client, p string) (int64, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, st, err := c.Exists(ctx, p)
	if err != nil || !ok {
		return 0, false
	}
	return st.EphemeralOwner, true
}

// TestServiceDiscoveryTakeOver: a node left at the instance's path by
// another session (a crashed run of the same instance, its session not yet
// expired) is taken over: Register returns, the node holds the new data,
// and once the old session ends the instance's own node is made.
func TestServiceDiscoveryTakeOver(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 30*time.Second)
	old := itest.Connect(t, shared, itest.Opts{NS: ns})
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	_, err := old.Create(ctx, base+"/test/i1", []byte(`{"name":"test","id":"i1"}`), zk.FlagEphemeral, client.WithParents())
	require.NoError(t, err)
	oldOwner := ownerOf(t, c, base+"/test/i1")

	d := newDiscovery(t, c)
	inst := instance("test", "i1", 10064, "new")
	require.NoError(t, d.Register(ctx, inst))
	requireSame(t, []discovery.Instance{inst}, query(t, d, "test"))
	require.NoError(t, old.Close())
	mine := must(c.WaitSession(ctx)).ID()
	itest.Eventually(t, 10*time.Second, "the instance's own node", func() bool {
		o, ok := tryOwner(c, base+"/test/i1")
		return ok && o == mine && o != oldOwner
	})
	requireSame(t, []discovery.Instance{inst}, query(t, d, "test"))
}
