package discoveryit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Ports of curator-x-discovery's TestServiceProvider.

// TestServiceProviderBasic ports testBasic.
func TestServiceProviderBasic(t *testing.T) {
	_, ctx, d := onShared(t)
	inst := instance("test", "i1", 10064, "thing")
	require.NoError(t, d.Register(ctx, inst))
	p, err := d.NewProvider("test")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	got, err := p.GetInstance()
	require.NoError(t, err)
	require.True(t, inst.Equal(got))
	requireSame(t, []discovery.Instance{inst}, must(p.GetAllInstances()))
}

// TestServiceProviderDisabledInstance ports testDisabledInstance: an
// instance registered disabled (which needs the "enabled" field) is never
// handed out, though the cache shows it.
func TestServiceProviderDisabledInstance(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	inst := instance("test", "i1", 10064, "thing")
	inst.Disabled = true

	plain := newDiscovery(t, c)
	require.ErrorIs(t, plain.Register(ctx, inst), discovery.ErrInvalidInstance, "Curator's default form cannot say disabled")

	d := newDiscovery(t, c, discovery.WithEnabledField())
	require.NoError(t, d.Register(ctx, inst))
	p, err := d.NewProvider("test")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	_, err = p.GetInstance()
	require.ErrorIs(t, err, discovery.ErrNoInstances)
	require.Empty(t, must(p.GetAllInstances()))
	ch, err := d.NewCache("test")
	require.NoError(t, err)
	require.NoError(t, ch.Start(ctx))
	require.Len(t, ch.Instances(), 1)

	inst.Disabled = false
	require.NoError(t, d.Update(ctx, inst))
	waitIDs(t, "enabled again", func() []discovery.Instance { return must(p.GetAllInstances()) }, "i1")
}

// TestServiceProviderNoteError: instances reported down by the caller are
// left out once the threshold is reached, for the policy's timeout; a
// filter leaves out what it refuses; strategies pick among the rest.
func TestServiceProviderNoteError(t *testing.T) {
	_, ctx, d := onShared(t)
	for i, id := range []string{"a", "b", "c", "x"} {
		require.NoError(t, d.Register(ctx, instance("test", id, 8000+i, "")))
	}
	policy := discovery.DownInstancePolicy{Timeout: 3 * time.Second, ErrorThreshold: 2}
	p, err := d.NewProvider("test", discovery.WithDownInstancePolicy(policy),
		discovery.WithFilter(func(i discovery.Instance) bool { return i.ID != "x" }))
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	require.Equal(t, []string{"a", "b", "c"}, ids(must(p.GetAllInstances())))
	for _, want := range []string{"a", "b", "c", "a"} { // round robin by default
		got, err := p.GetInstance()
		require.NoError(t, err)
		require.Equal(t, want, got.ID)
	}

	b := must(p.GetAllInstances())[1]
	p.NoteError(b)
	require.Equal(t, []string{"a", "b", "c"}, ids(must(p.GetAllInstances())), "one error is below the threshold")
	p.NoteError(b)
	require.Equal(t, []string{"a", "c"}, ids(must(p.GetAllInstances())), "b is down")
	itest.Eventually(t, 10*time.Second, "b back after the timeout", func() bool {
		return len(must(p.GetAllInstances())) == 3
	})

	sticky := discovery.Sticky(discovery.Random())
	sp, err := d.NewProvider("test", discovery.WithStrategy(sticky))
	require.NoError(t, err)
	require.NoError(t, sp.Start(ctx))
	first, err := sp.GetInstance()
	require.NoError(t, err)
	for range 20 {
		require.True(t, first.Equal(must(sp.GetInstance())))
	}
	require.NoError(t, d.Unregister(ctx, first))
	itest.Eventually(t, 10*time.Second, "sticky moves on once its instance is gone", func() bool {
		got, err := sp.GetInstance()
		return err == nil && got.ID != first.ID
	})
	require.Equal(t, 1, sticky.InstanceNumber())
}
