package securityit

import (
	"context"
	"errors"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestACLHolderIsSafeFromAnotherIdentity: alice holds a mutex whose
// directory lets anyone read and queue (CREATE) but only alice delete.
// bob, another identity, reads her node, but cannot delete or write it,
// nor take the lock: his TryLock says it is held, his Lock waits until
// its ctx ends, and alice's holding is untouched. bob's own nodes cannot
// be deleted by him either (deletes need the parent's permission): his
// guaranteed deletes give up at once, counted, instead of looping; the
// nodes go with his session.
func TestACLHolderIsSafeFromAnotherIdentity(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	queueOpen := append(zk.DigestACL(zk.PermAll, alice, alicePW), zk.WorldACL(zk.PermRead|zk.PermCreate)...)
	a := aliceRW(t, ns, map[string][]zk.ACL{"/locks/job": queueOpen})
	ctx := ctxT(t, time.Minute)

	ma, err := mutex.New(a, "/locks/job", mutex.WithData([]byte("alice@host-a")))
	require.NoError(t, err)
	require.NoError(t, ma.Lock(ctx))
	token, err := ma.Token(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, queueOpen, aclOf(t, a, "/locks/job"), "the provider's ACL")
	held := itest.Children(t, a, "/locks/job")
	require.Len(t, held, 1)
	node := path.Join("/locks/job", held[0])
	require.ElementsMatch(t, append(zk.DigestACL(zk.PermAll, alice, alicePW), zk.WorldACL(zk.PermRead)...),
		aclOf(t, a, node), "the client's ACL: alice all, world read")

	b := as(t, ns, bob, bobPW)
	data, _, err := b.Get(ctx, node)
	require.NoError(t, err, "world may read")
	require.Equal(t, "alice@host-a", string(data))
	mb, err := mutex.New(b, "/locks/job")
	require.NoError(t, err)
	parts, err := mb.Participants(ctx)
	require.NoError(t, err)
	require.Len(t, parts, 1)

	requireACLRefusal(t, b.Delete(ctx, node, -1), "delete")
	_, err = b.Set(ctx, node, []byte("bob"), -1)
	requireACLRefusal(t, err, "set")

	var locked *zkrecipes.LockedError
	require.True(t, errors.As(mb.TryLock(ctx), &locked), "TryLock must say the lock is held")
	short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	err = mb.Lock(short)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "bob must wait, not hold: %v", err)

	require.Equal(t, int64(2), b.DeletesGivenUp(), "bob's two nodes: not deletable by bob")
	require.Zero(t, b.PendingDeletes(), "nothing retried in the background")
	require.False(t, itest.Closed(ma.Lost()), "alice's holding is untouched")
	again, err := ma.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, token, again)
	require.True(t, itest.Exists(t, a, node))

	require.NoError(t, b.Close()) // bob's ephemeral nodes go with his session
	require.Equal(t, held, itest.WaitChildren(t, a, "/locks/job", 1))
	require.NoError(t, ma.Unlock(ctx))
	onlyChildren(t, a, "/locks/job")
}

// TestACLWorldReadOnly: nodes made with CreatorAllWorldReadACL are read by
// anyone, written only by their creator's identity (in any session).
func TestACLWorldReadOnly(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a := aliceRW(t, ns, nil)
	ctx := ctxT(t, time.Minute)
	_, err := a.Create(ctx, "/config/db", []byte("v1"), zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)

	anon := as(t, ns, "", "")
	data, _, err := anon.Get(ctx, "/config/db")
	require.NoError(t, err)
	require.Equal(t, "v1", string(data))
	kids, _, err := anon.Children(ctx, "/config")
	require.NoError(t, err)
	require.Equal(t, []string{"db"}, kids)

	_, err = anon.Set(ctx, "/config/db", []byte("v2"), -1)
	requireACLRefusal(t, err, "set")
	requireACLRefusal(t, anon.Delete(ctx, "/config/db", -1), "delete")
	_, err = anon.Create(ctx, "/config/other", nil, zk.FlagPersistent)
	requireACLRefusal(t, err, "create")
	_, err = anon.Multi(ctx, &zk.SetDataRequest{Path: "/config/db", Data: []byte("v3"), Version: -1})
	requireACLRefusal(t, err, "multi")

	a2 := as(t, ns, alice, alicePW) // alice again, in a session of her own
	_, err = a2.Set(ctx, "/config/db", []byte("v2"), -1)
	require.NoError(t, err)
	data, _, err = anon.Get(ctx, "/config/db")
	require.NoError(t, err)
	require.Equal(t, "v2", string(data))
	require.NoError(t, a.Delete(ctx, "/config/db", -1))
}

// TestACLDigestDefault: with digest auth and no ACL given, nodes are
// alice's alone: not even readable by others.
func TestACLDigestDefault(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a := as(t, ns, alice, alicePW, client.WithACLProvider(inNamespace(ns, nil)))
	ctx := ctxT(t, time.Minute)
	_, err := a.Create(ctx, "/secret", []byte("s"), zk.FlagEphemeral)
	require.NoError(t, err)
	require.ElementsMatch(t, zk.DigestACL(zk.PermAll, alice, alicePW), aclOf(t, a, "/secret"))
	b := as(t, ns, bob, bobPW)
	_, _, err = b.Get(ctx, "/secret")
	requireACLRefusal(t, err, "get")
	ok, _, err := b.Exists(ctx, "/secret")
	require.NoError(t, err, "exists needs no permission")
	require.True(t, ok)
}

// TestACLProviderPerPath: the provider is asked for every node a call
// makes, containers made as parents included, by absolute path; an empty
// answer is the client's default, and a Multi create without an ACL takes
// the provider's.
func TestACLProviderPerPath(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	readAll := append(zk.DigestACL(zk.PermAll, alice, alicePW), zk.WorldACL(zk.PermRead)...)
	queueOpen := append(zk.DigestACL(zk.PermAll, alice, alicePW), zk.WorldACL(zk.PermRead|zk.PermCreate)...)
	mine := zk.DigestACL(zk.PermAll, alice, alicePW)
	var asked sync.Map
	rules := inNamespace(ns, map[string][]zk.ACL{"/apps": readAll, "/apps/locks": queueOpen})
	a := as(t, ns, alice, alicePW, client.WithACLProvider(func(p string) []zk.ACL {
		asked.Store(p, true)
		return rules(p)
	}))
	ctx := ctxT(t, time.Minute)
	_, err := a.Create(ctx, "/apps/locks/job/cfg", nil, zk.FlagPersistent, client.WithParents())
	require.NoError(t, err)
	_, err = a.Multi(ctx, &zk.CreateRequest{Path: "/apps/other", Flags: zk.FlagPersistent})
	require.NoError(t, err)

	require.ElementsMatch(t, zk.WorldACL(zk.PermAll), aclOf(t, a, "/"), "the namespace root: open")
	require.ElementsMatch(t, readAll, aclOf(t, a, "/apps"))
	require.ElementsMatch(t, queueOpen, aclOf(t, a, "/apps/locks"))
	require.ElementsMatch(t, mine, aclOf(t, a, "/apps/locks/job"), "no rule: the digest default")
	require.ElementsMatch(t, mine, aclOf(t, a, "/apps/locks/job/cfg"))
	require.ElementsMatch(t, mine, aclOf(t, a, "/apps/other"), "Multi's create: asked for its own path, no rule")
	for _, p := range []string{ns, ns + "/apps", ns + "/apps/locks", ns + "/apps/locks/job", ns + "/apps/locks/job/cfg", ns + "/apps/other"} {
		_, ok := asked.Load(p)
		require.True(t, ok, "the provider was not asked for %s", p)
	}
	require.NoError(t, a.Delete(ctx, "/apps/locks/job/cfg", -1))
	require.NoError(t, a.Delete(ctx, "/apps/other", -1))
}
