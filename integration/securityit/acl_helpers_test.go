package securityit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// The identities of the ACL tests.
const (
	alice, alicePW = "alice", "alice-secret"
	bob, bobPW     = "bob", "bob-secret"
)

// inNamespace is an ACL provider for a test's namespace ns: the namespace
// root and what lies above it stay open to everyone (other tests share
// the server), rules give the ACL of paths relative to ns, and any other
// path under ns gets the client's default (nil).
func inNamespace(ns string, rules map[string][]zk.ACL) client.ACLProvider {
	return func(p string) []zk.ACL {
		rel, ok := strings.CutPrefix(p, ns)
		if !ok || rel == "" {
			return zk.WorldACL(zk.PermAll)
		}
		return rules[rel]
	}
}

// as connects a client of the plain port authenticated as user (no
// credentials for user ""), in namespace ns, with more options.
func as(t testing.TB, ns, user, password string, extra ...client.Option) *client.Client {
	t.Helper()
	var opts []client.Option
	if user != "" {
		opts = append(opts, client.WithDigestAuth(user, password))
	}
	return connectTo(t, server.Addrs(), ns, append(opts, extra...)...)
}

// aliceRW connects alice, whose nodes everyone may read but only she may
// write, with rules for particular paths.
func aliceRW(t testing.TB, ns string, rules map[string][]zk.ACL) *client.Client {
	return as(t, ns, alice, alicePW,
		client.WithACL(client.CreatorAllWorldReadACL()...), client.WithACLProvider(inNamespace(ns, rules)))
}

// aclOf reads the ACL of p (relative to c's namespace) from the server.
func aclOf(t testing.TB, c *client.Client, p string) []zk.ACL {
	t.Helper()
	ctx := ctxT(t, 10*time.Second)
	conn, err := c.Conn(ctx)
	require.NoError(t, err)
	full := c.Namespace() + p
	if p == "/" {
		full = c.Namespace()
	}
	acl, _, err := conn.GetACL(ctx, full)
	require.NoError(t, err, "GetACL %s", full)
	return acl
}

// requireACLRefusal requires that err is the typed ACL refusal of op.
func requireACLRefusal(t testing.TB, err error, op string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, client.ErrNoAuth)
	require.ErrorIs(t, err, zk.ErrNoAuth)
	var ae *client.ACLError
	require.ErrorAs(t, err, &ae, "%v", err)
	if op != "" {
		require.Equal(t, op, ae.Op, "%v", err)
	}
}

// creates counts the create requests a client sent through link.
func creates(link *faultlink.Link) int64 {
	return link.Requests(faultlink.OpCreate) + link.Requests(faultlink.OpCreate2) +
		link.Requests(faultlink.OpCreateContainer) + link.Requests(faultlink.OpCreateTTL)
}

// refusedOnce runs call on c, which must fail with the typed ACL refusal
// before ctx ends, having sent at most maxCreates creates through link,
// and none more afterwards (nothing retries in the background). The
// creates are counted after a round trip of c's: the link counts a
// request when it forwards it, so one the call wrote just before it
// returned (a create pipelined beside the refused one) is counted by the
// time the reply to a later request comes back.
func refusedOnce(t *testing.T, c *client.Client, link *faultlink.Link, maxCreates int64, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := creates(link)
	err := call(ctx)
	requireACLRefusal(t, err, "")
	require.NoError(t, ctx.Err(), "the refusal came only when ctx ended: %v", err)
	_, _, err = c.Exists(ctx, "/")
	require.NoError(t, err)
	sent := creates(link) - before
	require.GreaterOrEqual(t, sent, int64(1))
	require.LessOrEqual(t, sent, maxCreates, "creates sent for one refused call")
	// A quiet period only ever makes a passing test slower: no create
	// may follow in the background.
	time.Sleep(time.Second)
	require.Equal(t, before+sent, creates(link), "creates went on after the call returned")
}

// onlyChildren requires that dir (relative to c's namespace) has exactly
// the children kids.
func onlyChildren(t testing.TB, c *client.Client, dir string, kids ...string) {
	t.Helper()
	got := itest.Children(t, c, dir)
	if len(kids) == 0 {
		require.Empty(t, got, "left behind in %s", dir)
		return
	}
	require.Equal(t, kids, got, "children of %s", dir)
}
