package barrierit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// quiet is how long a call that must still wait is watched for an early
// return. It only ever makes a passing test slower.
const quiet = 300 * time.Millisecond

// TestDistributedBarrierBasic ports testBasic: a barrier is set, a Wait on
// it waits, and returns once another goroutine removes it.
func TestDistributedBarrierBasic(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	b := r.gate(r.client(nil, 0), "/barrier")
	require.NoError(t, b.Set(r.ctx))
	require.NoError(t, b.Set(r.ctx), "a barrier set twice")
	require.True(t, itest.Exists(t, r.c, "/barrier"))
	res := r.wait(r.ctx, b)
	itest.Pending(t, res, quiet, "Wait on a set barrier")
	require.NoError(t, b.Remove(r.ctx))
	require.NoError(t, await(t, res, "Wait once the barrier is removed"))
	require.NoError(t, b.Remove(r.ctx), "a barrier removed twice")
	require.False(t, itest.Exists(t, r.c, "/barrier"))
}

// TestDistributedBarrierNoBarrier ports testNoBarrier: Wait on a barrier
// that was never set returns at once, with a deadline or without one.
func TestDistributedBarrierNoBarrier(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	b := r.gate(r.client(nil, 0), "/barrier")
	ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, b.Wait(ctx))
	require.NoError(t, await(t, r.wait(context.Background(), b), "Wait without a deadline"))
	require.False(t, itest.Exists(t, r.c, "/barrier"), "Wait created nothing")
}

// TestDistributedBarrierMultiClient ports testMultiClient: one client sets
// the barrier and goes away; two other clients wait on it; a fourth removes
// it, and both waits return, not before.
func TestDistributedBarrierMultiClient(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	setter := r.client(nil, 0)
	require.NoError(t, r.gate(setter, "/barrier").Set(r.ctx))
	require.NoError(t, setter.Close())

	w1 := r.wait(r.ctx, r.gate(r.client(nil, 0), "/barrier"))
	w2 := r.wait(r.ctx, r.gate(r.client(nil, 0), "/barrier"))
	itest.Pending(t, w1, quiet, "the first client's Wait")
	itest.Pending(t, w2, 0, "the second client's Wait")

	require.NoError(t, r.gate(r.client(nil, 0), "/barrier").Remove(r.ctx))
	require.NoError(t, await(t, w1, "the first client's Wait"))
	require.NoError(t, await(t, w2, "the second client's Wait"))
}

// TestDistributedBarrierServerCrash ports testServerCrash, with the
// outcome this package promises instead of Curator's: Curator's
// waitOnBarrier throws ConnectionLossException when the server stops; a
// server crash is no removal, so here Wait keeps waiting through it. A
// Wait whose ctx ends while the server is down returns ctx's error, never
// nil; once the server is back, the barrier is still set (it is
// persistent), and the Wait that kept waiting returns when it is removed.
func TestDistributedBarrierServerCrash(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t)
	r := newRig(t, cl, 2*time.Minute)
	b := r.gate(r.client(nil, 2*time.Second), "/barrier")
	require.NoError(t, b.Set(r.ctx))
	long := r.wait(r.ctx, b)
	itest.Pending(t, long, quiet, "Wait before the crash")

	require.NoError(t, cl.StopServer(r.ctx, 0))
	shortCtx, cancel := context.WithTimeout(r.ctx, time.Second)
	defer cancel()
	short := r.wait(shortCtx, b)
	require.ErrorIs(t, await(t, short, "Wait with a deadline while the server is down"), context.DeadlineExceeded)
	itest.Pending(t, long, quiet, "Wait while the server is down")

	require.NoError(t, cl.StartServer(r.ctx, 0))
	require.NoError(t, cl.WaitServing(r.ctx, 0))
	itest.Eventually(t, 30*time.Second, "the barrier read back", func() bool {
		ok, err := itest.TryExists(r.c, "/barrier")
		return err == nil && ok
	})
	itest.Pending(t, long, quiet, "Wait once the server is back: the barrier is still set")
	require.NoError(t, b.Remove(r.ctx))
	require.NoError(t, await(t, long, "Wait once the barrier is removed"))
}

// TestBarrierClose: Close ends the Waits under way with ErrClosed, leaves
// the barrier set (it is shared), and every later call fails with
// ErrClosed; Close is idempotent. A closed client ends a Wait too.
func TestBarrierClose(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	c := r.client(nil, 0)
	b := r.gate(c, "/barrier")
	require.NoError(t, b.Set(r.ctx))
	res := r.wait(r.ctx, b)
	itest.Pending(t, res, quiet, "Wait")
	require.NoError(t, b.Close())
	require.ErrorIs(t, await(t, res, "Wait after Close"), zkrecipes.ErrClosed)
	require.NoError(t, b.Close())
	require.ErrorIs(t, b.Set(r.ctx), zkrecipes.ErrClosed)
	require.ErrorIs(t, b.Remove(r.ctx), zkrecipes.ErrClosed)
	require.ErrorIs(t, b.Wait(r.ctx), zkrecipes.ErrClosed)
	require.True(t, itest.Exists(t, r.c, "/barrier"), "Close removed the barrier")

	other := r.gate(c, "/barrier")
	res = r.wait(r.ctx, other)
	itest.Pending(t, res, quiet, "Wait of a second handle")
	require.NoError(t, c.Close())
	require.ErrorIs(t, await(t, res, "Wait after the client closed"), zkrecipes.ErrClosed)
	require.NoError(t, r.gate(r.c, "/barrier").Remove(r.ctx))
	r.requireGone("/barrier")
}
