package integration

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// mxDefaultData is the data a node gets without WithData. It checks that it
// is this host's address as Curator writes it: one of this machine's
// interface addresses in text form (or, on a host without one, its name or
// 127.0.0.1).
func mxDefaultData(t testing.TB) string {
	t.Helper()
	d := string(lockq.DefaultData())
	require.NotEmpty(t, d)
	if host, err := os.Hostname(); err == nil && d == host {
		return d
	}
	ip := net.ParseIP(d)
	require.NotNil(t, ip, "default node data %q is neither an IP address nor the host name", d)
	if ip.IsLoopback() {
		return d
	}
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.Equal(ip) {
			return d
		}
	}
	t.Fatalf("default node data %q is not an address of this host (%v)", d, addrs)
	return ""
}

// TestMutexNewRejectsBadInput checks mutex.New's argument errors, which
// need no server, and that nil handles and clients give errors, not panics.
func TestMutexNewRejectsBadInput(t *testing.T) {
	noLeaks(t)
	c, err := client.New(client.WithServers(shared.Addrs()...))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()

	_, err = mutex.New(nil, "/lock")
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "nil client")
	for _, p := range []string{"", "lock", "/lock/", "/a//b", "/a/../b", "/", "/zookeeper", "/zookeeper/lock", "/a\x00b"} {
		m, err := mutex.New(c, p)
		assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "path %q", p)
		assert.Nil(t, m, "path %q", p)
	}
	m, err := mutex.New(c, "/lock", mutex.WithData([]byte("x")), nil)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "nil option")
	assert.Nil(t, m)

	// New does no I/O: a client that was never started is fine.
	m, err = mutex.New(c, "/a/deeper/lock", mutex.WithData(nil), mutex.WithLostOnSessionLossOnly(),
		mutex.WithRevocationListener(func() {}))
	require.NoError(t, err)
	assert.Equal(t, "/a/deeper/lock", m.Path())
	assert.ErrorIs(t, m.Lock(context.Background()), zkrecipes.ErrNotStarted)

	// A zero Mutex (not a nil one: that is a programming error, as with a
	// nil *sync.Mutex) answers every call with a typed error.
	nilM := &mutex.Mutex{}
	ctx := context.Background()
	assert.ErrorIs(t, nilM.Lock(ctx), zkrecipes.ErrInvalidArgument)
	assert.ErrorIs(t, nilM.TryLock(ctx), zkrecipes.ErrInvalidArgument)
	assert.ErrorIs(t, nilM.Unlock(ctx), zkrecipes.ErrInvalidArgument)
	_, err = nilM.Participants(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	assert.False(t, nilM.IsHeld())
	assert.True(t, closed(nilM.Lost()))
	_, err = nilM.Token(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	assert.Empty(t, nilM.Node())
	assert.Empty(t, nilM.Path())
	assert.ErrorIs(t, mutex.Revoke(ctx, nil, "/lock/x"), zkrecipes.ErrInvalidArgument)
}

// TestMutexReentrancy takes one handle three deep, through the holding's
// context: one node, the same path
// and token throughout, gone only at the third Unlock. A fourth Unlock, and
// an Unlock on a handle that never locked, give ErrNotHeld; TryLock from
// another handle (even on the same client) gives ErrLocked at once and leaves
// no node behind.
func TestMutexReentrancy(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	c := connect(t, clientOpts{ns: ns})
	other := connect(t, clientOpts{ns: ns})
	m := mxNew(t, c, mxLockPath)

	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld, "Unlock before any Lock")
	require.False(t, m.IsHeld())
	require.Zero(t, mxTok(m))
	require.Empty(t, m.Node())

	require.NoError(t, m.Lock(ctx))
	node, tok := m.Node(), mxTok(m)
	require.Regexp(t, mxNodeName, mxBase(node))
	require.Equal(t, mxLockPath, node[:len(mxLockPath)])
	require.Positive(t, tok)
	// Reentrancy travels in the holding's context, not in the handle.
	hctx, hcancel := m.Context(ctx)
	defer hcancel()
	require.NoError(t, m.Lock(hctx))
	require.NoError(t, m.TryLock(hctx), "TryLock with the holding's context is reentrant")
	var le *zkrecipes.LockedError
	require.ErrorAs(t, m.TryLock(ctx), &le, "TryLock without it is another goroutine's: it fails")
	require.True(t, le.Local)
	require.Equal(t, node, m.Node(), "reentrant Lock changed the node")
	require.Equal(t, tok, mxTok(m), "reentrant Lock changed the token")
	require.Equal(t, []string{mxBase(node)}, children(t, other, mxLockPath), "reentrant Lock made another node")

	// Contenders from elsewhere fail at once and leave nothing behind; the
	// holder never releases meanwhile, so a TryLock that waited would run
	// into its deadline instead of returning ErrLocked.
	for name, cl := range map[string]*client.Client{"other client": other, "same client": c} {
		h := mxNew(t, cl, mxLockPath)
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := h.TryLock(tctx)
		cancel()
		require.ErrorIs(t, err, zkrecipes.ErrLocked, name)
		require.False(t, h.IsHeld(), name)
		require.Equal(t, []string{mxBase(node)}, children(t, other, mxLockPath), "%s: TryLock left a node", name)
		require.ErrorIs(t, h.Unlock(ctx), zkrecipes.ErrNotHeld, "%s: Unlock on a handle that does not hold", name)
	}

	lost := m.Lost()
	for i := 1; i <= 2; i++ {
		require.NoError(t, m.Unlock(ctx))
		require.True(t, m.IsHeld(), "after Unlock %d of 3", i)
		require.Equal(t, node, m.Node())
		require.True(t, exists(t, other, node), "node gone after Unlock %d of 3", i)
		require.False(t, closed(lost), "Lost closed after Unlock %d of 3", i)
	}
	require.NoError(t, m.Unlock(ctx))
	require.False(t, m.IsHeld())
	require.False(t, exists(t, other, node), "node still there after the last Unlock")
	require.True(t, closed(lost), "Lost still open after the last Unlock")
	require.True(t, closed(m.Lost()), "Lost of a handle that does not hold is open")
	require.Zero(t, mxTok(m))
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrNotHeld, "a fourth Unlock")

	// The handle can lock again, with a new node.
	require.NoError(t, m.TryLock(ctx))
	require.NotEqual(t, node, m.Node())
	require.Greater(t, mxTok(m), tok)
	require.NoError(t, m.Unlock(ctx))
}

// TestMutexLostOnClose checks that Lost closes when the holder's client
// closes, that the node goes with the session, that the lost holding is
// neither held (IsHeld) nor reentered, and that the handle then unlocks
// without hanging, reporting the loss (ErrLost) and the closed client.
func TestMutexLostOnClose(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	c := connect(t, clientOpts{ns: ns})
	m := mxNew(t, c, mxLockPath)
	require.True(t, closed(m.Lost()), "Lost of a handle that never held is open")

	require.NoError(t, m.Lock(ctx))
	lost, node := m.Lost(), m.Node()
	hctx, hcancel := m.Context(ctx)
	defer hcancel()
	require.False(t, closed(lost), "Lost closed while holding")
	time.Sleep(100 * time.Millisecond)
	require.False(t, closed(lost), "Lost closed while holding, untouched")

	require.NoError(t, c.Close())
	require.True(t, waitClosed(lost, 10*time.Second), "Lost still open after the client closed")
	eventually(t, 10*time.Second, "the node goes with the closed session", func() bool {
		return !exists(t, obs, node)
	})
	require.False(t, m.IsHeld(), "IsHeld on a lost holding")
	require.ErrorIs(t, m.Lock(hctx), zkrecipes.ErrLost, "reentrant Lock on a lost holding")
	require.ErrorIs(t, context.Cause(hctx), zkrecipes.ErrLost)
	err := m.Unlock(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost, "Unlock of a lost holding")
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
	require.False(t, m.IsHeld())
	require.ErrorIs(t, m.Lock(ctx), zkrecipes.ErrClosed, "Lock on a closed client")
	require.False(t, m.IsHeld())
}
