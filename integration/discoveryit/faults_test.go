package discoveryit

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestServiceDiscoveryCrashedInstance ports testCrashedInstance: the
// registering client's session expires (its link is cut for longer than
// the session timeout); its instances leave the server, and once the link
// is back they are registered again in the new session, with their latest
// data (set while cut off), a DynamicSequential one as a single new node.
func TestServiceDiscoveryCrashedInstance(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, time.Minute)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: time.Second})
	watcher := itest.Connect(t, shared, itest.Opts{NS: ns})
	d := newDiscovery(t, c)
	i1 := instance("test", "i1", 10064, "v1")
	s1 := instance("test", "s1", 10065, "seq")
	s1.ServiceType = discovery.DynamicSequential
	require.NoError(t, d.Register(ctx, i1))
	require.NoError(t, d.Register(ctx, s1))
	i1.Payload = json.RawMessage(`"v2"`)
	require.NoError(t, d.Update(ctx, i1))
	before := itest.WaitChildren(t, watcher, base+"/test", 2)
	owner := ownerOf(t, watcher, base+"/test/i1")

	wd, err := discovery.New(watcher, base)
	require.NoError(t, err)
	defer wd.Close(ctx)
	p, err := wd.NewProvider("test")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	waitIDs(t, "provider", func() []discovery.Instance { return must(p.GetAllInstances()) }, "i1", "s1")

	states, cancel := c.Subscribe()
	defer cancel()
	link.Cut()
	itest.WaitState(t, states, client.StateLost, 0, 20*time.Second)
	itest.WaitChildren(t, watcher, base+"/test", 0) // the server expired the session
	waitIDs(t, "provider with the session gone", func() []discovery.Instance { return must(p.GetAllInstances()) })
	// Data set while cut off is what the instance is registered with again.
	i1.Payload = json.RawMessage(`"v3"`)
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	err = d.Update(short, i1)
	cancelShort()
	require.True(t, err == nil || errors.Is(err, context.DeadlineExceeded), "Update while cut off: %v", err)
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, 0, 20*time.Second)

	after := itest.WaitChildren(t, watcher, base+"/test", 2)
	require.Contains(t, after, "i1")
	for _, k := range after {
		require.False(t, k != "i1" && slices.Contains(before, k), "the sequential node %s is the old one", k)
	}
	require.NotEqual(t, owner, ownerOf(t, watcher, base+"/test/i1"), "registered again in the new session")
	all := waitIDs(t, "provider after the re-registration", func() []discovery.Instance { return must(p.GetAllInstances()) }, "i1", "s1")
	requireSame(t, []discovery.Instance{i1, s1}, all)
	require.Equal(t, `"v3"`, string(all[0].Payload), "the latest data")
	for range 10 { // and no second node comes
		require.Len(t, itest.Children(t, watcher, base+"/test"), 2)
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServiceDiscoveryEnsemble: on a three-server ensemble, killing the
// server the registering client is connected to keeps its instance (the
// session moves to another server; the node is not made again), a
// provider on another client keeps seeing it, and updates go on.
func TestServiceDiscoveryEnsemble(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 4 * time.Second})
	watcher := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 4 * time.Second})
	d := newDiscovery(t, c)
	inst := instance("test", "i1", 10064, "v1")
	require.NoError(t, d.Register(ctx, inst))
	_, st, err := watcher.Get(ctx, base+"/test/i1")
	require.NoError(t, err)

	wd := newDiscovery(t, watcher)
	p, err := wd.NewProvider("test")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	waitIDs(t, "provider", func() []discovery.Instance { return must(p.GetAllInstances()) }, "i1")

	conn, err := c.Conn(ctx)
	require.NoError(t, err)
	victim := slices.IndexFunc(cl.Addrs(), func(a string) bool { return strings.EqualFold(a, conn.Server()) })
	require.GreaterOrEqual(t, victim, 0, "client on %s, servers %v", conn.Server(), cl.Addrs())
	t.Logf("the registering client is on server %d: killing it", victim)
	states, cancel := c.Subscribe()
	defer cancel()
	require.NoError(t, cl.KillServer(ctx, victim))
	itest.WaitState(t, states, client.StateReconnected, 0, 30*time.Second)

	inst.Payload = json.RawMessage(`"v2"`)
	require.NoError(t, d.Update(ctx, inst))
	itest.Eventually(t, 20*time.Second, "the provider sees the update", func() bool {
		l, err := p.GetAllInstances()
		return err == nil && len(l) == 1 && l[0].Equal(inst)
	})
	_, st2, err := watcher.Get(ctx, base+"/test/i1")
	require.NoError(t, err)
	require.Equal(t, st.Czxid, st2.Czxid, "the node survived the server's death")
	require.Equal(t, st.EphemeralOwner, st2.EphemeralOwner)
}
