package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// joinGroup starts a group member on its own session and waits until it joined.
func joinGroup(t *testing.T, ns, p, id string, data []byte) *client.Client {
	t.Helper()
	c := connect(t, ns)
	m, err := group.New(c, p, id, data)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close(context.Background()) }) // also when Start fails
	require.NoError(t, m.Start(ctxT(t, 30*time.Second)))
	return c
}

func TestMembers(t *testing.T) {
	ns := namespace(t)
	ca := joinGroup(t, ns, "/groups/workers", "worker-a", []byte("10.0.0.5:8080"))
	cb := joinGroup(t, ns, "/groups/workers", "worker-b", []byte{0, 1, 0xfe})
	// A member as Curator's GroupMember makes one: an ephemeral node
	// PATH/<id> holding its data (here with no data at all).
	cj := connect(t, ns)
	_, err := cj.Create(ctxT(t, 10*time.Second), "/groups/workers/java-1", nil, zk.FlagEphemeral)
	require.NoError(t, err)

	r := zkr(t, ns, "members", "/groups/workers")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr members:\n%s", r.stdout)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 5)
	require.Equal(t, "/groups/workers  group  3 members", lines[0])
	require.Regexp(t, `^ID\s+SESSION\s+AGE\s+CZXID\s+DATA$`, lines[1])
	require.Regexp(t, `^java-1\s+`+sessionHex(cj.Session().ID())+`\s+\S+\s+\d+\s+-$`, lines[2])
	require.Regexp(t, `^worker-a\s+`+sessionHex(ca.Session().ID())+`\s+\S+\s+\d+\s+10\.0\.0\.5:8080$`, lines[3])
	require.Regexp(t, `^worker-b\s+`+sessionHex(cb.Session().ID())+`\s+\S+\s+\d+\s+0x0001fe$`, lines[4])

	r = zkr(t, ns, "members", "--json", "/groups/workers")
	require.Equal(t, 0, r.code, r.stderr)
	var raw map[string]any // the documented field names, spelled out
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &raw), r.stdout)
	require.Equal(t, "/groups/workers", raw["path"])
	first := raw["members"].([]any)[1].(map[string]any)
	for _, f := range []string{"id", "data", "data_bytes", "session", "created", "age_seconds", "czxid"} {
		require.Contains(t, first, f)
	}
	var v GroupView
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	require.Len(t, v.Members, 3)
	a, b := v.Members[1], v.Members[2]
	require.Equal(t, "worker-a", a.ID)
	require.Equal(t, "10.0.0.5:8080", a.Data)
	require.Equal(t, 13, a.DataBytes)
	require.Equal(t, "0x"+strconv.FormatInt(ca.Session().ID(), 16), a.Session)
	require.Equal(t, "0x0001fe", b.Data)
	require.Equal(t, 3, b.DataBytes)
	require.Less(t, a.Czxid, b.Czxid, "worker-a joined first")
	require.False(t, a.Created.IsZero())
	require.GreaterOrEqual(t, a.AgeSeconds, 0.0)

	// A group whose members all left: exit 0, no members.
	_, err = cj.Create(ctxT(t, 10*time.Second), "/groups/empty", nil, 0)
	require.NoError(t, err)
	r = zkr(t, ns, "members", "/groups/empty")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "/groups/empty  group  0 members\n", r.stdout)
	r = zkr(t, ns, "members", "--json", "/groups/empty")
	require.Equal(t, 0, r.code, r.stderr)
	require.JSONEq(t, `{"path":"/groups/empty","members":[]}`, r.stdout)

	requireOneLineError(t, zkr(t, ns, "members", "/groups/missing"), 1)
	requireOneLineError(t, zkr(t, ns, "members", "groups"), 2)
	requireOneLineError(t, zkr(t, ns, "members"), 2)
	requireOneLineError(t, zkrNoServer(t, "--zk", "127.0.0.1:1", "--timeout", "1s", "members", "/g"), 3)
}
