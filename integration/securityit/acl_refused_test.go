package securityit

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// TestACLRefusalReachesTheCallerOnce: under a directory alice lets others
// only read, every recipe bob starts fails at once with the typed ACL
// error (client.ErrNoAuth in a *client.ACLError), having sent one or two
// creates (its node, and the container it lacked) through its fault
// link, and none afterwards: no hang, no retry loop, nothing left behind.
func TestACLRefusalReachesTheCallerOnce(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a := aliceRW(t, ns, nil)
	ctx := ctxT(t, time.Minute)
	_, err := a.Create(ctx, "/guarded/marker", nil, zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)
	link := itest.NewLink(t)
	b := as(t, ns, bob, bobPW, client.WithDialer(link.Dial))

	// maxCreates: the node, and each missing container down to the one
	// whose parent refuses (/guarded).
	cases := []struct {
		name       string
		maxCreates int64
		call       func(ctx context.Context) error
	}{
		{"mutex", 2, func(ctx context.Context) error {
			m, err := mutex.New(b, "/guarded/lock")
			require.NoError(t, err)
			return m.Lock(ctx)
		}},
		{"rwlock", 2, func(ctx context.Context) error {
			rw, err := rwlock.New(b, "/guarded/rw")
			require.NoError(t, err)
			return rw.RLock(ctx)
		}},
		{"semaphore", 3, func(ctx context.Context) error {
			s, err := semaphore.New(b, "/guarded/sem", 2)
			require.NoError(t, err)
			_, err = s.Acquire(ctx)
			return err
		}},
		{"election", 2, func(ctx context.Context) error {
			l, err := election.NewLatch(b, "/guarded/leader")
			require.NoError(t, err)
			defer l.Close(context.Background())
			return l.Start(ctx)
		}},
		{"shared count", 1, func(ctx context.Context) error {
			n, err := shared.NewCount(b, "/guarded/count", 3)
			require.NoError(t, err)
			defer n.Close()
			return n.Start(ctx)
		}},
		{"node", 1, func(ctx context.Context) error {
			n, err := node.New(b, "/guarded/member", []byte("bob"))
			require.NoError(t, err)
			defer n.Close(context.Background())
			return n.Start(ctx) // the server's refusal; the node keeps trying until Close
		}},
		{"group", 2, func(ctx context.Context) error {
			m, err := group.New(b, "/guarded/workers", "bob", nil)
			require.NoError(t, err)
			defer m.Close(context.Background())
			return m.Start(ctx)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			refusedOnce(t, b, link, tc.maxCreates, tc.call)
		})
	}
	onlyChildren(t, a, "/guarded", "marker")
	require.Zero(t, b.PendingDeletes())
}

// TestACLWriteRefusedToAHolder: a holder whose node's ACL others cannot
// write (bob writes into alice's shared count) gets the typed error from
// the write, at once.
func TestACLWriteRefusedToAHolder(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a := aliceRW(t, ns, nil)
	ctx := ctxT(t, time.Minute)
	na, err := shared.NewCount(a, "/limits/reports", 3)
	require.NoError(t, err)
	require.NoError(t, na.Start(ctx))
	t.Cleanup(func() { _ = na.Close() })

	b := as(t, ns, bob, bobPW)
	nb, err := shared.NewCount(b, "/limits/reports", 1)
	require.NoError(t, err)
	require.NoError(t, nb.Start(ctx), "bob may read alice's count")
	t.Cleanup(func() { _ = nb.Close() })
	v, err := nb.Get()
	require.NoError(t, err)
	require.EqualValues(t, 3, v.Count)
	_, err = nb.TrySet(ctx, v, 9)
	requireACLRefusal(t, err, "set")
}

// TestACLInvalidWithoutCredentials: an ACL of the "auth" scheme from a
// client that has no credentials is refused by the server as invalid:
// the typed error at once, and no node.
func TestACLInvalidWithoutCredentials(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	anon := as(t, ns, "", "", client.WithACL(client.CreatorAllWorldReadACL()...),
		client.WithACLProvider(inNamespace(ns, map[string][]zk.ACL{"/locks": zk.WorldACL(zk.PermAll)})))
	ctx := ctxT(t, time.Minute)
	m, err := mutex.New(anon, "/locks/job")
	require.NoError(t, err)
	err = m.Lock(ctx)
	require.ErrorIs(t, err, zk.ErrInvalidACL)
	var ae *client.ACLError
	require.ErrorAs(t, err, &ae)
	require.NoError(t, ctx.Err())
	onlyChildren(t, anon, "/locks")
}
