package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// The token never lies, a downgrade keeps the grant order,
// and a holder can guard writes kept in ZooKeeper (OwnerCheck) and work
// (Context) with its holding.

// TestSafetyTokenIsCzxid: on a holding Token is never 0 and is the node's
// creation zxid, at once after every grant; without a holding it is
// ErrNotHeld.
func TestSafetyTokenIsCzxid(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	m := mxNew(t, connect(t, clientOpts{ns: ns}), mxLockPath)

	_, err := m.Token(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrNotHeld)
	var last int64
	for i := range 20 {
		require.NoError(t, m.Lock(ctx))
		tok, err := m.Token(ctx)
		require.NoError(t, err, "round %d", i)
		require.NotZero(t, tok, "round %d", i)
		require.Equal(t, sfCzxid(t, obs, m.Node()), tok, "round %d: the token is the node's czxid", i)
		require.Greater(t, tok, last, "round %d", i)
		last = tok
		require.NoError(t, m.Unlock(ctx))
		_, err = m.Token(ctx)
		require.ErrorIs(t, err, zkrecipes.ErrNotHeld, "round %d, after Unlock", i)
	}
}

// TestSafetyTokenAfterLost: once the holding is lost (the link is cut, Lost
// closes) Token reports ErrLost, never a token. In the race of a cut right
// after the grant, Token is either the node's czxid or ErrLost, never 0.
func TestSafetyTokenAfterLost(t *testing.T) {
	noLeaks(t)
	ctx := ctxT(t, 120*time.Second)
	h := sfNewLinked(t)
	obs, link, m := h.obs, h.link, h.m

	require.NoError(t, m.Lock(ctx))
	tok, err := m.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, sfCzxid(t, obs, m.Node()), tok)
	link.Cut()
	require.True(t, waitClosed(m.Lost(), 10*time.Second), "Lost did not close after the cut")
	tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tok, err = m.Token(tctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost, "Token of a lost holding (got token %d)", tok)
	h.restore(t, ctx)

	for i := range 5 {
		require.NoError(t, m.Lock(ctx))
		node := m.Node()
		link.Cut()
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		tok, err := m.Token(tctx)
		cancel()
		if err == nil {
			require.NotZero(t, tok, "round %d: token 0 with a nil error", i)
			require.Equal(t, sfCzxid(t, obs, node), tok, "round %d", i)
		} else {
			require.True(t, errors.Is(err, zkrecipes.ErrLost) || errors.Is(err, context.DeadlineExceeded),
				"round %d: Token: %v", i, err)
		}
		t.Logf("round %d: Token right after a cut: %d, %v", i, tok, err)
		h.restore(t, ctx)
	}
}

// TestSafetyTokenDuringBlackhole: a link blackholed right after the grant
// (nothing answers, nothing fails: the client learns only from its ping
// deadline, 2/3 of the 10 s session timeout later) must not hold Token
// hostage for that suspension, nor answer 0. Token(ctx) with a 300 ms
// context returns the node's czxid (if the holder's read of its node was
// done), or ctx's error or ErrLost, and it returns while Lost is still open.
// Before the fix, Token() took no context, blocked 6.7 s and then returned 0.
func TestSafetyTokenDuringBlackhole(t *testing.T) {
	noLeaks(t)
	ctx := ctxT(t, 120*time.Second)
	h := sfNewLinked(t)
	obs, link, m := h.obs, h.link, h.m
	for i := range 3 {
		require.NoError(t, m.Lock(ctx))
		node := m.Node()
		link.Blackhole()
		tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		tok, err := m.Token(tctx)
		cancel()
		lostOpen := !closed(m.Lost())
		t.Logf("round %d: Token right after a blackhole: %d, %v (Lost still open: %v)", i, tok, err, lostOpen)
		require.True(t, lostOpen, "round %d: Token returned only once the suspension was detected", i)
		if err == nil {
			require.Equal(t, sfCzxid(t, obs, node), tok, "round %d: a token that is not the node's czxid", i)
		} else {
			require.Zero(t, tok, "round %d: a token beside an error", i)
			require.True(t, errors.Is(err, zkrecipes.ErrLost) || errors.Is(err, context.DeadlineExceeded),
				"round %d: Token: %v", i, err)
		}
		h.restore(t, ctx)
	}
}

// sfLinked is a mutex handle whose client (10 s session) reaches ZooKeeper
// through a fault link, beside an observer client on the same namespace.
type sfLinked struct {
	obs, c *client.Client
	link   *faultlink.Link
	sid    int64 // the linked client's first session
	m      *mutex.Mutex
}

func sfNewLinked(t *testing.T) *sfLinked {
	t.Helper()
	ns := namespace(t)
	h := &sfLinked{obs: connect(t, clientOpts{ns: ns}), link: newLink(t)}
	h.c = connect(t, clientOpts{ns: ns, link: h.link, timeout: 10 * time.Second})
	h.sid = h.c.Session().ID()
	h.m = mxNew(t, h.c, mxLockPath)
	return h
}

// restore ends the link's fault, waits until the same session is back, and
// unlocks the handle's holding, which may have been lost (sfUnlockLost).
func (h *sfLinked) restore(t *testing.T, ctx context.Context) {
	t.Helper()
	h.link.Restore()
	sfWaitReconnected(t, h.c, h.sid)
	sfUnlockLost(t, ctx, h.obs, h.m)
}

// sfUnlockLost unlocks a holding that may have been lost and waits until its
// node is gone from the server.
func sfUnlockLost(t *testing.T, ctx context.Context, obs *client.Client, m *mutex.Mutex) {
	t.Helper()
	node := m.Node()
	err := m.Unlock(ctx)
	if err != nil {
		t.Logf("Unlock of a lost holding: %v", err)
	}
	require.False(t, m.IsHeld())
	require.Eventually(t, func() bool {
		ok, _, err := obs.Exists(ctx, node)
		return err == nil && !ok
	}, 10*time.Second, pollEvery, "the lost holding's node is deleted")
}

// TestSafetyTokenDowngradeOrder: A write-locks (token tA), B queues for the
// write lock, A downgrades: A's read token is tA; when A releases the read
// lock, B's write token tB > tA: tokens grow in grant order, so a store that
// fences on the highest token seen accepts B.
func TestSafetyTokenDowngradeOrder(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, bc := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.Lock(ctx))
	tA, err := a.WriteLock().Token(ctx)
	require.NoError(t, err)
	writeNode := a.WriteLock().Node()
	bGot := rwAsync(ctx, b.Lock)
	waitChildren(t, obs, rwDir, 2)

	require.NoError(t, a.Downgrade(ctx))
	tRead, err := a.ReadLock().Token(ctx)
	require.NoError(t, err)
	require.Equal(t, tA, tRead, "the downgraded read holding must carry the writer's token")
	kids := waitChildren(t, obs, rwDir, 2)
	require.Contains(t, kids[0]+kids[1], rwSequenceSuffix(t, writeNode), "the read node sits at the writer's place")
	pending(t, bGot, rwQuiet, "B while A holds the downgraded read lock")

	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, await(t, bGot, rwPatience, "B's write lock"))
	tB, err := b.WriteLock().Token(ctx)
	require.NoError(t, err)
	require.Equal(t, sfCzxid(t, bc, b.WriteLock().Node()), tB)
	require.Greater(t, tB, tA, "tokens must grow in grant order (A write %d, A read %d, B write %d)", tA, tRead, tB)
	require.NoError(t, b.Unlock(ctx))
}

// TestSafetyOwnerCheck: a Multi guarded by OwnerCheck commits while the lock
// is held; after Unlock OwnerCheck is ErrNotHeld, and a Multi with the op
// taken while held fails with ErrNoNode and changes nothing.
func TestSafetyOwnerCheck(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	c := connect(t, clientOpts{ns: ns})
	m := mxNew(t, c, mxLockPath)
	_, err := c.Create(ctx, "/data", []byte("v0"), 0, client.WithParents())
	require.NoError(t, err)

	_, err = m.OwnerCheck()
	require.ErrorIs(t, err, zkrecipes.ErrNotHeld)
	require.NoError(t, m.Lock(ctx))
	check, err := m.OwnerCheck()
	require.NoError(t, err)
	require.NotNil(t, check)
	_, err = c.Multi(ctx, check, &zk.SetDataRequest{Path: "/data", Data: []byte("v1"), Version: -1})
	require.NoError(t, err, "a guarded write while the lock is held")
	data, _, err := c.Get(ctx, "/data")
	require.NoError(t, err)
	require.Equal(t, "v1", string(data))

	require.NoError(t, m.Unlock(ctx))
	_, err = m.OwnerCheck()
	require.ErrorIs(t, err, zkrecipes.ErrNotHeld)
	_, err = c.Multi(ctx, check, &zk.SetDataRequest{Path: "/data", Data: []byte("v2"), Version: -1})
	require.ErrorIs(t, err, zk.ErrNoNode, "a guarded write after Unlock must fail")
	data, _, err = c.Get(ctx, "/data")
	require.NoError(t, err)
	require.Equal(t, "v1", string(data), "the guarded write after Unlock changed the data")
}

// TestSafetyHoldingContext: Context on a handle that does not hold is
// cancelled already (cause ErrNotHeld); on a holding it ends when the
// holding is released (ErrNotHeld) or lost, the link cut (ErrLost).
func TestSafetyHoldingContext(t *testing.T) {
	noLeaks(t)
	ctx := ctxT(t, 60*time.Second)
	h := sfNewLinked(t)
	link, m := h.link, h.m

	nctx, ncancel := m.Context(ctx)
	require.True(t, closed(nctx.Done()), "Context of a handle that does not hold must be cancelled")
	require.ErrorIs(t, context.Cause(nctx), zkrecipes.ErrNotHeld)
	ncancel()

	require.NoError(t, m.Lock(ctx))
	rctx, rcancel := m.Context(ctx)
	defer rcancel()
	require.NoError(t, m.Unlock(ctx))
	require.True(t, waitClosed(rctx.Done(), 5*time.Second), "the context did not end at Unlock")
	require.ErrorIs(t, context.Cause(rctx), zkrecipes.ErrNotHeld)

	require.NoError(t, m.Lock(ctx))
	hctx, hcancel := m.Context(ctx)
	defer hcancel()
	require.False(t, closed(hctx.Done()))
	link.Cut()
	require.True(t, waitClosed(hctx.Done(), 10*time.Second), "the holding's context did not end when the link was cut")
	require.ErrorIs(t, context.Cause(hctx), zkrecipes.ErrLost)
	require.True(t, closed(m.Lost()))
	lctx, lcancel := context.WithTimeout(hctx, 5*time.Second)
	defer lcancel()
	require.ErrorIs(t, m.Lock(lctx), zkrecipes.ErrLost, "reentry with a lost holding's context")
	h.restore(t, ctx)
}
