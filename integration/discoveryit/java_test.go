package discoveryit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Helpers of the Curator interop tests: the programs of testdata/curator,
// compiled once per test binary against Curator 5.4's and
// curator-x-discovery's jars.

func javaProgram(t *testing.T, class string) itest.Java {
	return itest.Java{Source: "testdata/curator/" + class + ".java", Class: class,
		Classpath: itest.Classpath(t, append(append([]string(nil), itest.CuratorJars...), itest.DiscoveryJars...)...)}
}

// javaSessionMs is the Java services' session timeout.
const javaSessionMs = 2000

// javaService is one running CuratorDiscovery: a Java service on the base
// path of a test's namespace.
type javaService struct {
	p    *itest.JavaProc
	root *client.Client // no namespace: writes the stop node
	ctl  string
}

// startJava runs CuratorDiscovery with payload class kind ("String" or
// "Details"), serializer ("default" or "full") and actions (see the
// program), in namespace ns of cl's servers, and waits for it to be ready.
func startJava(t *testing.T, ctx context.Context, ns, kind, serializer string, actions ...string) *javaService {
	t.Helper()
	root := itest.Connect(t, shared, itest.Opts{})
	ctl := fmt.Sprintf("%s/ctl-%d", ns, time.Now().UnixNano())
	args := append([]string{shared.ConnectString(), fmt.Sprint(javaSessionMs), ns + base, ctl, kind, serializer}, actions...)
	p := javaProgram(t, "CuratorDiscovery").Start(t, ctx, "curator: ready", args...)
	return &javaService{p: p, root: root, ctl: ctl}
}

// stop tells the program to end: "close" closes its discovery (its
// instances are unregistered) and waits for it; "crash" makes it exit at
// once, its session left to expire.
func (j *javaService) stop(t *testing.T, how string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := j.root.Create(ctx, j.ctl, []byte(how), 0, client.WithParents())
	require.NoError(t, err)
	out := j.p.Output(t)
	if how == "close" {
		require.Contains(t, out, "curator: closed")
	}
}

// waitLine reads the program's lines until one that starts with prefix
// satisfies ok, and returns its rest.
func (j *javaService) waitLine(t *testing.T, prefix, what string, ok func(rest string) bool) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	last := ""
	for {
		select {
		case line, open := <-j.p.Lines():
			require.True(t, open, "java ended while waiting for %s; it printed:\n%s", what, j.p.Printed())
			rest, found := strings.CutPrefix(line, prefix)
			if !found {
				if strings.HasPrefix(line, "error") {
					require.FailNow(t, "java failed", "%s", line)
				}
				continue
			}
			last = rest
			if ok(rest) {
				return rest
			}
		case <-deadline:
			require.FailNowf(t, "java did not see it", "%s: last %q line: %s\njava printed:\n%s", what, prefix, last, tail(j.p.Printed(), 40))
		}
	}
}

// waitView waits until the Java cache of name (kind "view") or its query
// ("query") shows instances for which ok is true, and returns them.
func (j *javaService) waitView(t *testing.T, kind, name, what string, ok func([]discovery.Instance) bool) []discovery.Instance {
	t.Helper()
	var got []discovery.Instance
	j.waitLine(t, kind+" "+name, what, func(rest string) bool {
		got = decodeAll(t, rest)
		return ok(got)
	})
	return got
}

// waitProvider waits until the Java provider of name lists exactly ids.
func (j *javaService) waitProvider(t *testing.T, name string, ids ...string) {
	t.Helper()
	want := strings.Join(ids, " ")
	j.waitLine(t, "provider "+name, "provider "+want, func(rest string) bool { return strings.TrimSpace(rest) == want })
}

// decodeAll reads the instances a "view" or "query" line lists.
func decodeAll(t *testing.T, s string) []discovery.Instance {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var out []discovery.Instance
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return out
		}
		require.NoError(t, err, "%s", s)
		inst, err := discovery.Unmarshal(raw)
		require.NoError(t, err, "%s", raw)
		out = append(out, inst)
	}
}

// sameAs returns a predicate: the instances are equal to want, in any order.
func sameAs(want ...discovery.Instance) func([]discovery.Instance) bool {
	return func(got []discovery.Instance) bool {
		if len(got) != len(want) {
			return false
		}
		for _, w := range want {
			found := false
			for _, g := range got {
				found = found || g.Equal(w)
			}
			if !found {
				return false
			}
		}
		return true
	}
}

// idsAre returns a predicate: the instances' ids are exactly these, sorted.
func idsAre(want ...string) func([]discovery.Instance) bool {
	return func(got []discovery.Instance) bool {
		return strings.Join(ids(got), " ") == strings.Join(want, " ")
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
