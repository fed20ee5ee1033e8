package discovery_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// curatorBytes reads testdata/curator-5.4.txt: the bytes Curator 5.4's
// JsonInstanceSerializer wrote for each case.
func curatorBytes(t *testing.T) map[string][]byte {
	t.Helper()
	f, err := os.Open("testdata/curator-5.4.txt")
	require.NoError(t, err)
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[0] != "case" {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(fields[2])
		require.NoError(t, err)
		out[fields[1]] = b
	}
	require.NoError(t, sc.Err())
	return out
}

var spec = discovery.MustParseURISpec("{scheme}://{address}:{port}/{[}x{]}/v1")

// The instances CuratorSerialize.java builds, as Go reads them.
var javaCases = map[string]discovery.Instance{
	"string": {Name: "test", ID: "id-1", Address: "10.0.0.5", Port: 10064, Payload: json.RawMessage(`"thing"`),
		RegistrationTimeUTC: 1700000000123, ServiceType: discovery.Dynamic},
	"void": {Name: "test", ID: "id-2", ServiceType: discovery.Static, URISpec: spec},
	"class": {Name: "api", ID: "id-3", Address: "h", Port: 80, SSLPort: 443,
		Payload:             json.RawMessage(`{"@class":"CuratorSerialize$Payload","val":"v","weight":7}`),
		RegistrationTimeUTC: 5, ServiceType: discovery.Permanent, URISpec: spec},
	"disabled-full": {Name: "test", ID: "id-4", Address: "a", Port: 1, SSLPort: 2, Payload: json.RawMessage(`"p"`),
		RegistrationTimeUTC: 9, ServiceType: discovery.DynamicSequential, Disabled: true},
	"enabled-full": {Name: "test", ID: "id-5", Address: "a", RegistrationTimeUTC: 9, ServiceType: discovery.Dynamic},
	"list": {Name: "test", ID: "id-6", Address: "a", Port: 1,
		Payload: json.RawMessage(`["java.util.ArrayList",["Test value 1","Test value 2"]]`), ServiceType: discovery.Dynamic},
	"map": {Name: "test", ID: "id-7", Address: "a", Port: 1,
		Payload: json.RawMessage(`{"@class":"java.util.LinkedHashMap","1":"Test value 1","n":2}`), ServiceType: discovery.Dynamic},
	"long": {Name: "test", ID: "id-8", Address: "a", Port: 1, Payload: json.RawMessage(`["java.lang.Long",42]`), ServiceType: discovery.Dynamic},
	"int":  {Name: "test", ID: "id-9", Address: "a", Port: 1, Payload: json.RawMessage(`42`), ServiceType: discovery.Dynamic},
	"text": {Name: "tést", ID: `id "q" \ <&>`, Address: "a\tb\n\x01\x1f\x7f\u2028😀", Port: 8, SSLPort: 65535,
		Payload: json.RawMessage(`"\b\f\r"`), RegistrationTimeUTC: -1, URISpec: &discovery.URISpec{Parts: []discovery.URIPart{}}},
	"zero": {Name: "test", ID: "id-10", ServiceType: discovery.Dynamic},
}

// TestJsonInstanceSerializer ports Curator's TestJsonInstanceSerializer and
// TestJsonInstanceSerializerCompatibility against the bytes Curator 5.4
// wrote: Go reads every case as the instance Java built, and writes it
// again byte for byte (without "enabled" as Curator's default serializer,
// with it for the "-full" cases). Only "zero" differs: Go has no null port
// or address, so Curator's 0 and "" come back as null.
func TestJsonInstanceSerializer(t *testing.T) {
	golden := curatorBytes(t)
	require.Len(t, golden, len(javaCases))
	for name, want := range javaCases {
		t.Run(name, func(t *testing.T) {
			raw := golden[name]
			got, err := discovery.Unmarshal(raw)
			require.NoError(t, err, "%s", raw)
			require.True(t, want.Equal(got), "read %s\n got %v\nwant %v", raw, got, want)

			marshal := discovery.Marshal
			if strings.HasSuffix(name, "-full") {
				marshal = discovery.MarshalFull
			}
			again, err := marshal(got)
			require.NoError(t, err)
			if name == "zero" {
				require.Equal(t, strings.NewReplacer(`"address":""`, `"address":null`, `"port":0`, `"port":null`,
					`"sslPort":0`, `"sslPort":null`).Replace(string(raw)), string(again))
				return
			}
			require.Equal(t, string(raw), string(again))
		})
	}
}

// TestNoEnabledState: an instance without "enabled" is enabled (Curator's
// testNoEnabledState reads "{}"); null reads as Jackson reads a null
// primitive, false.
func TestNoEnabledState(t *testing.T) {
	inst, err := discovery.Unmarshal([]byte(`{}`))
	require.NoError(t, err)
	require.True(t, inst.Enabled())
	require.Equal(t, discovery.Dynamic, inst.ServiceType, "Curator's default type")
	inst, err = discovery.Unmarshal([]byte(`{"enabled":null,"serviceType":null}`))
	require.NoError(t, err)
	require.False(t, inst.Enabled())
	require.Equal(t, discovery.ServiceType(""), inst.ServiceType)
}

// TestFutureChanges: unknown fields are ignored (Curator's testFutureChanges).
func TestFutureChanges(t *testing.T) {
	inst, err := discovery.Unmarshal([]byte(`{"name":"name","id":"id","payload":"hey","enabled":false,"what":"x","num":10101,"date":1}`))
	require.NoError(t, err)
	require.Equal(t, "name", inst.Name)
	require.Equal(t, `"hey"`, string(inst.Payload))
	require.False(t, inst.Enabled())
}

func TestUnmarshalBadData(t *testing.T) {
	for _, bad := range []string{``, `null`, `[]`, `"x"`, `{"port":"x"}`, `{"port":4294967296}`, `{"serviceType":"NEW"}`, `{"enabled":1}`, `{`} {
		_, err := discovery.Unmarshal([]byte(bad))
		var de *discovery.DataError
		require.True(t, errors.Is(err, discovery.ErrBadData) && errors.As(err, &de), "%q: %v", bad, err)
	}
}

func TestMarshalRefuses(t *testing.T) {
	_, err := discovery.Marshal(discovery.Instance{Name: "a", ID: "b", Disabled: true})
	require.ErrorIs(t, err, discovery.ErrInvalidInstance)
	b, err := discovery.MarshalFull(discovery.Instance{Name: "a", ID: "b", Disabled: true})
	require.NoError(t, err)
	require.Contains(t, string(b), `"enabled":false`)
	_, err = discovery.Marshal(discovery.Instance{Name: "a", ID: "b", ServiceType: "NEW"})
	require.ErrorIs(t, err, discovery.ErrInvalidInstance)
	_, err = discovery.Marshal(discovery.Instance{Name: "a", ID: "b", Payload: json.RawMessage(`{`)})
	require.ErrorIs(t, err, discovery.ErrInvalidInstance)
	// A payload is written compact, as Jackson writes one.
	b, err = discovery.Marshal(discovery.Instance{Name: "a", ID: "b", Payload: json.RawMessage(" { \"k\" : [1, 2] } ")})
	require.NoError(t, err)
	require.Contains(t, string(b), `"payload":{"k":[1,2]},`)
}

// TestJSONPackage: json.Marshal and json.Unmarshal of an Instance use the
// full form.
func TestJSONPackage(t *testing.T) {
	in := javaCases["disabled-full"]
	b, err := json.Marshal([]discovery.Instance{in})
	require.NoError(t, err)
	require.Equal(t, "["+string(curatorBytes(t)["disabled-full"])+"]", string(b))
	var out []discovery.Instance
	require.NoError(t, json.Unmarshal(b, &out))
	require.True(t, in.Equal(out[0]))
}
