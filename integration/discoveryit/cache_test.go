package discoveryit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Ports of curator-x-discovery's TestServiceCache.

// TestServiceCacheInitialLoad ports testInitialLoad: a started cache sees
// three registrations; a second cache started afterwards loads all three.
func TestServiceCacheInitialLoad(t *testing.T) {
	_, ctx, d := onShared(t)
	ch, err := d.NewCache("test")
	require.NoError(t, err)
	rec := record(t, ch)
	require.NoError(t, ch.Start(ctx))
	require.Equal(t, discovery.Initialized, rec.next(t, 5*time.Second).Type, "empty at first")
	var want []discovery.Instance
	for i, id := range []string{"i1", "i2", "i3"} {
		inst := instance("test", id, 10064+i, "test")
		want = append(want, inst)
		require.NoError(t, d.Register(ctx, inst))
	}
	for range 3 {
		ev := rec.next(t, 10*time.Second)
		require.Equal(t, discovery.Added, ev.Type)
	}
	requireSame(t, want, ch.Instances())

	ch2, err := d.NewCache("test")
	require.NoError(t, err)
	require.NoError(t, ch2.Start(ctx))
	requireSame(t, want, ch2.Instances())
	require.NoError(t, ch2.Close(ctx))
	require.NoError(t, ch.Close(ctx))
}

// TestServiceCacheViaProvider ports testViaProvider: a provider finds a
// registered instance, then both of two.
func TestServiceCacheViaProvider(t *testing.T) {
	_, ctx, d := onShared(t)
	p, err := d.NewProvider("test")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	_, err = p.GetInstance()
	require.ErrorIs(t, err, discovery.ErrNoInstances)

	inst := instance("test", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))
	var found discovery.Instance
	itest.Eventually(t, 10*time.Second, "the provider finds the instance", func() bool {
		found, err = p.GetInstance()
		return err == nil
	})
	require.True(t, inst.Equal(found))

	inst2 := instance("test", "i2", 10064, "thing")
	inst2.Address = "foo"
	require.NoError(t, d.Register(ctx, inst2))
	all := waitIDs(t, "provider", func() []discovery.Instance { return must(p.GetAllInstances()) }, "i1", "i2")
	requireSame(t, []discovery.Instance{inst, inst2}, all)
	require.NoError(t, p.Close(ctx))
}

// TestServiceCacheUpdate ports testUpdate: an updated payload reaches the
// cache as one Updated event.
func TestServiceCacheUpdate(t *testing.T) {
	_, ctx, d := onShared(t)
	inst := instance("test", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))
	ch, err := d.NewCache("test")
	require.NoError(t, err)
	rec := record(t, ch)
	require.NoError(t, ch.Start(ctx))
	require.Equal(t, discovery.Added, rec.next(t, 5*time.Second).Type)
	require.Equal(t, discovery.Initialized, rec.next(t, 5*time.Second).Type)

	inst.Payload = json.RawMessage(`"changed"`)
	require.NoError(t, d.Update(ctx, inst))
	ev := rec.next(t, 10*time.Second)
	require.Equal(t, discovery.Updated, ev.Type)
	require.Equal(t, "i1", ev.Node)
	require.True(t, inst.Equal(ev.Instance))
	l := ch.Instances()
	require.Len(t, l, 1)
	require.Equal(t, `"changed"`, string(l[0].Payload))
}

// TestServiceCacheCache ports testCache: the cache tells of its own
// service's instances, never of another service's; Unregister is Removed.
func TestServiceCacheCache(t *testing.T) {
	_, ctx, d := onShared(t)
	ch, err := d.NewCache("test")
	require.NoError(t, err)
	require.NoError(t, ch.Start(ctx))
	changed, stop := ch.Events() // from now on: after the load
	defer stop()

	i1, i2 := instance("test", "i1", 10064, "thing"), instance("test", "i2", 10065, "thing")
	require.NoError(t, d.Register(ctx, i1))
	require.Equal(t, "i1", itest.Await(t, changed, 10*time.Second, "cacheChanged").Instance.ID)
	require.NoError(t, d.Register(ctx, i2))
	require.Equal(t, "i2", itest.Await(t, changed, 10*time.Second, "cacheChanged").Instance.ID)

	require.NoError(t, d.Register(ctx, instance("another", "i3", 10064, "thing")))
	itest.Pending(t, changed, time.Second, "cacheChanged for another service")

	require.NoError(t, d.Unregister(ctx, i1))
	ev := itest.Await(t, changed, 10*time.Second, "cacheChanged")
	require.Equal(t, discovery.Removed, ev.Type)
	require.True(t, i1.Equal(ev.Instance))
	requireSame(t, []discovery.Instance{i2}, ch.Instances())
}

// TestServiceCacheBadData: a node under the service whose data is no
// instance is left out; written over with an instance, it joins; written
// back to garbage, it leaves.
func TestServiceCacheBadData(t *testing.T) {
	c, ctx, d := onShared(t)
	_, err := c.Create(ctx, base+"/test/junk", []byte("not json"), 0, client.WithParents())
	require.NoError(t, err)
	ch, err := d.NewCache("test")
	require.NoError(t, err)
	rec := record(t, ch)
	require.NoError(t, ch.Start(ctx))
	require.Equal(t, discovery.Initialized, rec.next(t, 5*time.Second).Type)
	require.Empty(t, ch.Instances())
	require.Empty(t, query(t, d, "test"))
	_, err = d.QueryForInstance(ctx, "test", "junk")
	require.ErrorIs(t, err, discovery.ErrBadData)

	good, _ := discovery.Marshal(instance("test", "junk", 1, ""))
	_, err = c.Set(ctx, base+"/test/junk", good, -1)
	require.NoError(t, err)
	require.Equal(t, discovery.Added, rec.next(t, 10*time.Second).Type)
	_, err = c.Set(ctx, base+"/test/junk", []byte("{"), -1)
	require.NoError(t, err)
	require.Equal(t, discovery.Removed, rec.next(t, 10*time.Second).Type)
	require.Empty(t, ch.Instances())
	require.NoError(t, c.Delete(ctx, base+"/test/junk", -1))
	rec.none(t, 300*time.Millisecond)
}
