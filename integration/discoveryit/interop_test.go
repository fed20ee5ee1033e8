package discoveryit

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Interop with curator-x-discovery 5.4's own jars: Java services
// (testdata/curator/CuratorDiscovery.java) and Go ones on one base path.

// TestInteropJavaSeesGo: a Java ServiceDiscovery, ServiceCache and
// ServiceProvider see the instances Go registers, field for field; Go's
// updates and unregistrations; the instance vanish when the Go session
// expires (its link cut), and come back, with its latest data, once Go has
// registered it again in a new session.
func TestInteropJavaSeesGo(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: time.Second})
	d := newDiscovery(t, c)
	g1 := instance("api", "g1", 9001, "go-1")
	g1.SSLPort = 9443
	g1.URISpec = discovery.MustParseURISpec("{scheme}://{address}:{ssl-port}/v1")
	g2 := instance("api", "g2", 9002, "go-2")
	g2.Address = "10.1.2.3"
	require.NoError(t, d.Register(ctx, g1))
	require.NoError(t, d.Register(ctx, g2))

	j := startJava(t, ctx, ns, "String", "default", "watch", "api")
	j.waitView(t, "view", "api", "Java's cache sees both Go instances", sameAs(g1, g2))
	j.waitView(t, "query", "api", "Java's queryForInstances sees both", sameAs(g1, g2))
	j.waitProvider(t, "api", "g1", "g2")

	g1.Payload = json.RawMessage(`"go-1b"`)
	require.NoError(t, d.Update(ctx, g1))
	j.waitView(t, "view", "api", "Java sees the update", sameAs(g1, g2))
	require.NoError(t, d.Unregister(ctx, g2))
	j.waitView(t, "view", "api", "Java sees the unregistration", sameAs(g1))
	j.waitProvider(t, "api", "g1")

	// The Go session ends: the instance leaves Java's view, then comes
	// back with its latest data once Go registers it again.
	g1.Payload = json.RawMessage(`"go-1c"`)
	require.NoError(t, d.Update(ctx, g1))
	j.waitView(t, "view", "api", "Java sees the second update", sameAs(g1))
	states, cancel := c.Subscribe()
	defer cancel()
	link.Cut()
	itest.WaitState(t, states, client.StateLost, 0, 20*time.Second)
	j.waitView(t, "view", "api", "the instance leaves Java's view with the Go session", sameAs())
	j.waitProvider(t, "api")
	link.Restore()
	j.waitView(t, "view", "api", "Java sees the instance registered again", sameAs(g1))
	j.waitProvider(t, "api", "g1")
	j.stop(t, "close")
}

// TestInteropGoSeesJava: a Go provider, cache and queries see the
// instances a Java service registers, field for field, and see them go
// when it closes its discovery.
func TestInteropGoSeesJava(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	d := newDiscovery(t, c)
	p, err := d.NewProvider("api")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	ch, err := d.NewCache("api")
	require.NoError(t, err)
	rec := record(t, ch)
	require.NoError(t, ch.Start(ctx))
	require.Equal(t, discovery.Initialized, rec.next(t, 5*time.Second).Type)

	j := startJava(t, ctx, ns, "String", "default", "reg", "api", "j1", "7001", "java-1", "true",
		"reg", "api", "j2", "7002", "-", "true")
	all := waitIDs(t, "Go's provider", func() []discovery.Instance { return must(p.GetAllInstances()) }, "j1", "j2")
	for i, inst := range all {
		id := fmt.Sprintf("j%d", i+1)
		require.Equal(t, "api", inst.Name)
		require.Equal(t, id, inst.ID)
		require.Equal(t, 7001+i, inst.Port)
		require.Zero(t, inst.SSLPort)
		require.NotEmpty(t, inst.Address)
		require.Equal(t, discovery.Dynamic, inst.ServiceType)
		require.True(t, inst.Enabled())
		require.InDelta(t, time.Now().UnixMilli(), inst.RegistrationTimeUTC, float64(time.Hour.Milliseconds()))
		require.Equal(t, fmt.Sprintf("http://%s:%d/%s", inst.Address, 7001+i, id), inst.BuildURI(nil))
	}
	require.Equal(t, `"java-1"`, string(all[0].Payload))
	require.Nil(t, all[1].Payload)
	s, err := discovery.PayloadOf[string](all[0])
	require.NoError(t, err)
	require.Equal(t, "java-1", s)
	requireSame(t, all, query(t, d, "api"))
	requireSame(t, all, ch.Instances())
	got, err := d.QueryForInstance(ctx, "api", "j2")
	require.NoError(t, err)
	require.True(t, all[1].Equal(got))
	// The Java node holds what Go writes for the same instance, byte for byte.
	data, _, err := c.Get(ctx, base+"/api/j1")
	require.NoError(t, err)
	mine, err := discovery.Marshal(all[0])
	require.NoError(t, err)
	require.Equal(t, string(data), string(mine))

	j.stop(t, "close")
	waitIDs(t, "Go's provider after Java closed", func() []discovery.Instance { return must(p.GetAllInstances()) })
	require.Empty(t, ch.Instances())
	require.Empty(t, query(t, d, "api"))
}

// TestInteropMixed: Go and Java instances under one name are all seen by
// both sides' caches, queries and providers; a Java service that crashes
// leaves Go's view once its session expires.
func TestInteropMixed(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	d := newDiscovery(t, c)
	g1, g2 := instance("mix", "g1", 9001, "go-1"), instance("mix", "g2", 9002, "go-2")
	require.NoError(t, d.Register(ctx, g1))
	p, err := d.NewProvider("mix")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))

	j := startJava(t, ctx, ns, "String", "default", "reg", "mix", "j1", "7001", "java-1", "true",
		"reg", "mix", "j2", "7002", "java-2", "true", "watch", "mix")
	require.NoError(t, d.Register(ctx, g2))
	all := []string{"g1", "g2", "j1", "j2"}
	view := j.waitView(t, "view", "mix", "Java's cache sees all four", idsAre(all...))
	requireSame(t, []discovery.Instance{g1, g2}, view[:2])
	j.waitView(t, "query", "mix", "Java's query sees all four", idsAre(all...))
	j.waitProvider(t, "mix", all...)
	waitIDs(t, "Go's provider", func() []discovery.Instance { return must(p.GetAllInstances()) }, all...)
	require.Equal(t, all, ids(query(t, d, "mix")))
	// Round robin over Go's view hands out each of the four in turn.
	seen := map[string]int{}
	for range 8 {
		inst, err := p.GetInstance()
		require.NoError(t, err)
		seen[inst.ID]++
	}
	require.Equal(t, map[string]int{"g1": 2, "g2": 2, "j1": 2, "j2": 2}, seen)

	j.stop(t, "crash")
	waitIDs(t, "Go's provider once the crashed Java session expired",
		func() []discovery.Instance { return must(p.GetAllInstances()) }, "g1", "g2")
}

// TestInteropEnabled: instances registered disabled ("enabled": false, by
// a Java full serializer or a Go Discovery WithEnabledField) are in both
// sides' caches but handed out by neither side's provider.
func TestInteropEnabled(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	d := newDiscovery(t, c, discovery.WithEnabledField())
	g1, g2 := instance("svc", "g1", 9001, "go-1"), instance("svc", "g2", 9002, "go-2")
	g1.Disabled = true
	require.NoError(t, d.Register(ctx, g1))
	require.NoError(t, d.Register(ctx, g2))
	j := startJava(t, ctx, ns, "String", "full", "reg", "svc", "j1", "7001", "java-1", "false",
		"reg", "svc", "j2", "7002", "java-2", "true", "watch", "svc")
	view := j.waitView(t, "view", "svc", "Java's cache holds all four", idsAre("g1", "g2", "j1", "j2"))
	require.False(t, view[0].Enabled(), "Java read g1 disabled")
	j.waitProvider(t, "svc", "g2", "j2")
	p, err := d.NewProvider("svc")
	require.NoError(t, err)
	require.NoError(t, p.Start(ctx))
	require.Equal(t, []string{"g2", "j2"}, ids(must(p.GetAllInstances())))
	l := query(t, d, "svc")
	require.Equal(t, []string{"g1", "g2", "j1", "j2"}, ids(l))
	require.False(t, l[2].Enabled(), "Go read j1 disabled")

	g1.Disabled = false
	require.NoError(t, d.Update(ctx, g1))
	j.waitProvider(t, "svc", "g1", "g2", "j2")
	j.stop(t, "close")
}

// details is CuratorDiscovery.Details.
type details struct {
	Host   string `json:"host"`
	Weight int    `json:"weight"`
}

// TestInteropPayloadClass: a Java service whose payload is a class of its
// own reads the payload Go wrote with JavaPayload, and Go reads Java's
// with PayloadOf.
func TestInteropPayloadClass(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	d := newDiscovery(t, c)
	g1 := instance("pay", "g1", 9001, "")
	var err error
	g1.Payload, err = discovery.JavaPayload("CuratorDiscovery$Details", details{Host: "go-host", Weight: 5})
	require.NoError(t, err)
	require.NoError(t, d.Register(ctx, g1))
	j := startJava(t, ctx, ns, "Details", "default", "reg", "pay", "j1", "7001", "java-host:3", "true", "watch", "pay")
	view := j.waitView(t, "view", "pay", "Java reads both payloads", idsAre("g1", "j1"))
	require.True(t, g1.Equal(view[0]), "Java read %s", view[0].Payload)
	j.waitProvider(t, "pay", "g1", "j1")

	j1, err := d.QueryForInstance(ctx, "pay", "j1")
	require.NoError(t, err)
	require.Equal(t, "CuratorDiscovery$Details", discovery.PayloadClass(j1))
	got, err := discovery.PayloadOf[details](j1)
	require.NoError(t, err)
	require.Equal(t, details{Host: "java-host", Weight: 3}, got)
	j.stop(t, "close")
}
