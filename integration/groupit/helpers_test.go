package groupit

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// join makes a member of the group at path on c, starts it (Start returns
// once it joined and sees the group), and closes it at cleanup.
func join(t *testing.T, c *client.Client, path, id, data string) *group.Member {
	t.Helper()
	m, err := group.New(c, path, id, []byte(data))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close(itest.Ctx(t, 10*time.Second)) }) // also when Start fails
	require.NoError(t, m.Start(itest.Ctx(t, 20*time.Second)))
	return m
}

// render writes a member map as "id=data,id=data" sorted by id, as the
// Java program prints it.
func render(members map[string][]byte) string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(members)) {
		parts = append(parts, fmt.Sprintf("%s=%s", id, members[id]))
	}
	return strings.Join(parts, ",")
}

// sees waits until m's members render as want.
func sees(t *testing.T, m *group.Member, want string) {
	t.Helper()
	itest.Eventually(t, 15*time.Second, fmt.Sprintf("member %s to see %s (sees %s)", m.ID(), want, render(m.Members())), func() bool {
		return render(m.Members()) == want
	})
}

// onServer is the group as the server has it: "id=data,..." of path's children.
func onServer(t *testing.T, c *client.Client, path string) string {
	t.Helper()
	members := map[string][]byte{}
	for _, k := range itest.Children(t, c, path) {
		data, _, err := c.Get(itest.Ctx(t, 10*time.Second), path+"/"+k)
		require.NoError(t, err)
		members[k] = data
	}
	return render(members)
}

// zktestEnsemble is a 3-server ensemble of the test's own.
func zktestEnsemble(t *testing.T) *zktest.Cluster {
	return zktest.ForTest(t, zktest.WithServers(3))
}

// serverOf is the index in cl of the server c is connected to.
func serverOf(t *testing.T, cl *zktest.Cluster, c *client.Client) int {
	t.Helper()
	conn, err := c.Conn(itest.Ctx(t, 10*time.Second))
	require.NoError(t, err)
	i := slices.Index(cl.Addrs(), conn.Server())
	require.GreaterOrEqual(t, i, 0, "%s is none of %v", conn.Server(), cl.Addrs())
	return i
}
