package discoveryit

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// golden is recipes/discovery's copy of the bytes Curator 5.4 writes.
const golden = "../../recipes/discovery/testdata/curator-5.4.txt"

// TestJsonInstanceSerializerGolden: Curator 5.4's JsonInstanceSerializer,
// run now, still writes the bytes recipes/discovery's unit tests check Go
// against (TestJsonInstanceSerializer there reads and rewrites each case
// byte for byte).
func TestJsonInstanceSerializerGolden(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out := javaProgram(t, "CuratorSerialize").Start(t, ctx, "case", "write").Output(t)
	var now []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "case ") {
			now = append(now, l)
		}
	}
	f, err := os.Open(golden)
	require.NoError(t, err)
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "case ") {
			want = append(want, sc.Text())
		}
	}
	require.Equal(t, want, now)
}

// TestJsonInstanceSerializerReadsGo: Curator 5.4's JsonInstanceSerializer
// reads what Go writes, field for field, for each payload class; a payload
// of the wrong class fails as it fails in Java (a ClassCastException).
func TestJsonInstanceSerializerReadsGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	spec := discovery.MustParseURISpec("{scheme}://{address}:{port}/{name}")
	type payload struct {
		Val    string `json:"val"`
		Weight int    `json:"weight"`
	}
	classPayload, err := discovery.JavaPayload("CuratorSerialize$Payload", payload{"v", 7})
	require.NoError(t, err)
	cases := []struct {
		kind string
		inst discovery.Instance
		full bool
		want string
	}{
		{"String", discovery.Instance{Name: "test", ID: "id-1", Address: "10.0.0.5", Port: 10064, Payload: json.RawMessage(`"thing"`),
			RegistrationTimeUTC: 1700000000123, ServiceType: discovery.Dynamic}, false,
			"name=test id=id-1 address=10.0.0.5 port=10064 sslPort=null payload=String:thing time=1700000000123 type=DYNAMIC uri=null enabled=true"},
		{"String", discovery.Instance{Name: "tést", ID: `"q" \ <&> 😀` + "\u2028", Address: "h", SSLPort: 443, Payload: json.RawMessage(`"\u00e9\ud83d\ude00"`),
			ServiceType: discovery.Static, URISpec: spec}, false,
			"name=tést id=\"q\" \\ <&> 😀\u2028 address=h port=null sslPort=443 payload=String:é😀 time=0 type=STATIC uri=https://h:/tést enabled=true"},
		{"String", discovery.Instance{Name: "a", ID: "b", Port: 1, Disabled: true, ServiceType: discovery.DynamicSequential, URISpec: spec}, true,
			"name=a id=b address=null port=1 sslPort=null payload=null time=0 type=DYNAMIC_SEQUENTIAL uri=http://:1/a enabled=false"},
		{"String", discovery.Instance{Name: "a", ID: "b", Port: 1, ServiceType: discovery.Permanent}, true,
			"name=a id=b address=null port=1 sslPort=null payload=null time=0 type=PERMANENT uri=null enabled=true"},
		{"Void", discovery.Instance{Name: "a", ID: "b"}, false,
			"name=a id=b address=null port=null sslPort=null payload=null time=0 type=null uri=null enabled=true"},
		{"Payload", discovery.Instance{Name: "a", ID: "b", Payload: classPayload, ServiceType: discovery.Dynamic}, false,
			"name=a id=b address=null port=null sslPort=null payload=Payload:Payload{val=v,weight=7} time=0 type=DYNAMIC uri=null enabled=true"},
		{"Object", discovery.Instance{Name: "a", ID: "b", Payload: json.RawMessage(`{"k":[1,"x"]}`), ServiceType: discovery.Dynamic}, false,
			"name=a id=b address=null port=null sslPort=null payload=LinkedHashMap:{k=[1, x]} time=0 type=DYNAMIC uri=null enabled=true"},
		{"String", discovery.Instance{Name: "a", ID: "b", Payload: json.RawMessage(`5`), ServiceType: discovery.Dynamic}, false,
			"error ClassCastException"},
		{"Void", discovery.Instance{Name: "a", ID: "b", Payload: json.RawMessage(`"x"`), ServiceType: discovery.Dynamic}, false,
			"error ClassCastException"},
	}
	// One Java process per payload class, reading its cases in order.
	args := map[string][]string{}
	wants := map[string][]string{}
	for _, c := range cases {
		marshal := discovery.Marshal
		if c.full {
			marshal = discovery.MarshalFull
		}
		b, err := marshal(c.inst)
		require.NoError(t, err)
		args[c.kind] = append(args[c.kind], base64.StdEncoding.EncodeToString(b))
		wants[c.kind] = append(wants[c.kind], "read "+c.want)
	}
	for kind, a := range args {
		out := javaProgram(t, "CuratorSerialize").Start(t, ctx, "read", append([]string{"read", kind}, a...)...).Output(t)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "read ") {
				got = append(got, l)
			}
		}
		require.Equal(t, wants[kind], got, "payload class %s", kind)
	}
}
