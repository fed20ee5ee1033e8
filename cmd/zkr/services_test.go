package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// curatorInstance is an instance as curator-x-discovery 5.4's
// JsonInstanceSerializer wrote it: the "class" case of
// recipes/discovery/testdata/curator-5.4.txt (a PERMANENT instance id-3 of
// api, with an SSL port, a payload of a Java class and a uriSpec).
const curatorInstance = "eyJuYW1lIjoiYXBpIiwiaWQiOiJpZC0zIiwiYWRkcmVzcyI6ImgiLCJwb3J0Ijo4MCwic3NsUG9ydCI6NDQzLCJwYXlsb2FkIjp7IkBjbGFzcyI6IkN1cmF0b3JTZXJpYWxpemUkUGF5bG9hZCIsInZhbCI6InYiLCJ3ZWlnaHQiOjd9LCJyZWdpc3RyYXRpb25UaW1lVVRDIjo1LCJzZXJ2aWNlVHlwZSI6IlBFUk1BTkVOVCIsInVyaVNwZWMiOnsicGFydHMiOlt7InZhbHVlIjoic2NoZW1lIiwidmFyaWFibGUiOnRydWV9LHsidmFsdWUiOiI6Ly8iLCJ2YXJpYWJsZSI6ZmFsc2V9LHsidmFsdWUiOiJhZGRyZXNzIiwidmFyaWFibGUiOnRydWV9LHsidmFsdWUiOiI6IiwidmFyaWFibGUiOmZhbHNlfSx7InZhbHVlIjoicG9ydCIsInZhcmlhYmxlIjp0cnVlfSx7InZhbHVlIjoiLyIsInZhcmlhYmxlIjpmYWxzZX0seyJ2YWx1ZSI6IlsiLCJ2YXJpYWJsZSI6dHJ1ZX0seyJ2YWx1ZSI6IngiLCJ2YXJpYWJsZSI6ZmFsc2V9LHsidmFsdWUiOiJdIiwidmFyaWFibGUiOnRydWV9LHsidmFsdWUiOiIvdjEiLCJ2YXJpYWJsZSI6ZmFsc2V9XX19"

// register registers inst under /services on a session of its own.
func register(t *testing.T, ns string, inst discovery.Instance, opts ...discovery.Option) *client.Client {
	t.Helper()
	c := connect(t, ns)
	d, err := discovery.New(c, "/services", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close(context.Background()) })
	require.NoError(t, d.Register(ctxT(t, 30*time.Second), inst))
	return c
}

func TestServices(t *testing.T) {
	ns := namespace(t)
	ctx := ctxT(t, time.Minute)
	a := discovery.Instance{Name: "api", ID: "go-a", Address: "10.0.0.5", Port: 8080,
		RegistrationTimeUTC: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli(),
		URISpec:             discovery.MustParseURISpec("{scheme}://{address}:{port}/api")}
	ca := register(t, ns, a)
	b := discovery.Instance{Name: "api", ID: "go-b", Address: "10.0.0.6", Port: 8080, SSLPort: 8443,
		RegistrationTimeUTC: 1, Disabled: true}
	register(t, ns, b, discovery.WithEnabledField())
	register(t, ns, discovery.Instance{Name: "web", ID: "w1", Address: "10.0.0.7", Port: 80})
	// A Java service's instance, as Curator wrote it, and a node that holds
	// no instance.
	raw, err := base64.StdEncoding.DecodeString(curatorInstance)
	require.NoError(t, err)
	c := connect(t, ns)
	_, err = c.Create(ctx, "/services/api/id-3", raw, 0)
	require.NoError(t, err)
	_, err = c.Create(ctx, "/services/api/junk", []byte("hello"), 0)
	require.NoError(t, err)

	r := zkr(t, ns, "services", "/services")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr services:\n%s", r.stdout)
	require.Equal(t, "/services  2 services\n"+
		"SERVICE  INSTANCES  ENABLED  UNREADABLE\n"+
		"api      3          2        1\n"+
		"web      1          1        0\n", r.stdout)
	r = zkr(t, ns, "services", "--json", "/services")
	require.Equal(t, 0, r.code, r.stderr)
	require.JSONEq(t, `{"base":"/services","services":[
		{"name":"api","instances":3,"enabled":2,"unreadable":1},
		{"name":"web","instances":1,"enabled":1,"unreadable":0}]}`, r.stdout)

	r = zkr(t, ns, "services", "/services", "api")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr services api:\n%s", r.stdout)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 6)
	require.Equal(t, "/services/api  service  3 instances, 2 enabled, 1 unreadable", lines[0])
	require.Regexp(t, `^ID\s+ADDRESS\s+PORT\s+SSL\s+TYPE\s+ENABLED\s+REGISTERED\s+SESSION\s+URI$`, lines[1])
	require.Regexp(t, `^go-a\s+10\.0\.0\.5\s+8080\s+-\s+DYNAMIC\s+yes\s+2026-01-02T03:04:05Z\s+`+
		sessionHex(ca.Session().ID())+`\s+http://10\.0\.0\.5:8080/api$`, lines[2])
	require.Regexp(t, `^go-b\s+10\.0\.0\.6\s+8080\s+8443\s+DYNAMIC\s+no\s+1970-01-01T00:00:00Z\s+0x[0-9a-f]+\s+-$`, lines[3])
	require.Regexp(t, `^id-3\s+h\s+80\s+443\s+PERMANENT\s+yes\s+1970-01-01T00:00:00Z\s+0x0\s+https://h:80/\{x\}/v1$`, lines[4])
	require.Regexp(t, `^unreadable junk \(session 0x0\): not a service instance: .+; data hello$`, lines[5])

	r = zkr(t, ns, "services", "--json", "/services", "api")
	require.Equal(t, 0, r.code, r.stderr)
	var fields map[string]any // the documented field names, spelled out
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fields), r.stdout)
	require.Equal(t, "/services", fields["base"])
	require.Equal(t, "api", fields["name"])
	java := fields["instances"].([]any)[2].(map[string]any)
	for _, f := range []string{"node", "id", "name", "address", "port", "ssl_port", "service_type", "enabled",
		"registered", "registration_time_utc", "session", "uri_spec", "uri", "payload"} {
		require.Contains(t, java, f)
	}
	var v ServiceView
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	require.Len(t, v.Instances, 4)
	ga, gb, j, junk := v.Instances[0], v.Instances[1], v.Instances[2], v.Instances[3]
	require.Equal(t, "go-a", ga.Node)
	require.Equal(t, 8080, *ga.Port)
	require.Nil(t, ga.SSLPort, "an unset port is null")
	require.True(t, ga.Enabled)
	require.Equal(t, sessionHex(ca.Session().ID()), ga.Session)
	require.Equal(t, "{scheme}://{address}:{port}/api", ga.URISpec)
	require.Empty(t, ga.Payload)
	require.False(t, gb.Enabled)
	require.Empty(t, gb.URI)
	require.Equal(t, "id-3", j.ID)
	require.Equal(t, "PERMANENT", j.ServiceType)
	require.Equal(t, int64(5), j.RegistrationTimeUTC)
	require.Equal(t, "https://h:80/{x}/v1", j.URI)
	require.JSONEq(t, `{"@class":"CuratorSerialize$Payload","val":"v","weight":7}`, string(j.Payload))
	require.Equal(t, "junk", junk.Node)
	require.Contains(t, junk.Error, "not a service instance")
	require.Equal(t, "hello", junk.Data)
	require.Equal(t, 5, junk.DataBytes)

	requireOneLineError(t, zkr(t, ns, "services", "/nothing"), 1)
	requireOneLineError(t, zkr(t, ns, "services", "/services", "nothing"), 1)
	requireOneLineError(t, zkr(t, ns, "services", "services"), 2)
	requireOneLineError(t, zkr(t, ns, "services", "/services", "a/b"), 2)
	requireOneLineError(t, zkr(t, ns, "services"), 2)
	requireOneLineError(t, zkr(t, ns, "services", "/services", "api", "extra"), 2)
	requireOneLineError(t, zkrNoServer(t, "--zk", "127.0.0.1:1", "--timeout", "1s", "services", "/services"), 3)
}
