package barrierit

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestDoubleBarrierEnterTimeoutWithdraws is CURATOR-80 and CURATOR-318:
// with Curator, a member whose timed enter gave up kept its node, so two
// later members of a three-member barrier counted it and passed. Here the
// member that gives up withdraws: its node is gone, the two later members
// wait, and once a third member is really there (the one that gave up,
// entering again) all three pass through one opening.
func TestDoubleBarrierEnterTimeoutWithdraws(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	d1 := r.double(r.client(nil, 0), "/barrier", 3)
	ctx, cancel := context.WithCancel(r.ctx)
	res := r.enterCtx(ctx, d1)
	r.waitMembers("/barrier", 1)
	cancel()
	require.ErrorIs(t, await(t, res, "Enter whose ctx ended"), context.Canceled)
	require.Empty(t, r.members("/barrier"), "the member that gave up left its node")
	require.Empty(t, d1.Node())

	d2 := r.double(r.client(nil, 0), "/barrier", 3)
	d3 := r.double(r.client(nil, 0), "/barrier", 3)
	e2, e3 := r.enter(d2), r.enter(d3)
	r.waitMembers("/barrier", 2)
	itest.Pending(t, e2, quiet, "Enter with two members of three")
	itest.Pending(t, e3, 0, "Enter with two members of three")

	require.NoError(t, d1.Enter(r.ctx), "the member that gave up enters again")
	require.NoError(t, await(t, e2, "Enter"))
	require.NoError(t, await(t, e3, "Enter"))
	require.Equal(t, d1.Round(), d2.Round())
	require.Equal(t, d1.Round(), d3.Round())
	r.leaveAll("/barrier", d1, d2, d3)
}

// TestDoubleBarrierWithdrawIsAtomic races a member's withdrawal against
// the arrival that completes the count, over and over: the first member of
// a two-member barrier gives up (its ctx is cancelled) at the instant a
// second member enters. Whoever wins, the outcome is one of the two
// consistent ones: the first withdrew and the second waits (nobody passed
// with a member that had left), or the barrier opened with both and the
// first member's Enter returned nil although its ctx ended. Never is the
// second member let through while the first returns an error.
func TestDoubleBarrierWithdrawIsAtomic(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, 2*time.Minute)
	d1 := r.double(r.client(nil, 0), "/barrier", 2)
	d2 := r.double(r.client(nil, 0), "/barrier", 2)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 18))
	outcomes := map[string]int{}
	for i := range 12 {
		ctx1, cancel1 := context.WithCancel(r.ctx)
		e1 := r.enterCtx(ctx1, d1)
		r.waitMembers("/barrier", 1)
		ctx2, cancel2 := context.WithCancel(r.ctx)
		go func() {
			time.Sleep(time.Duration(rng.IntN(4000)) * time.Microsecond)
			cancel1()
		}()
		e2 := r.enterCtx(ctx2, d2)
		err1 := await(t, e1, "the first member's Enter")
		if err1 == nil {
			outcomes["opened with both"]++
			require.NoError(t, await(t, e2, "the second member's Enter"), "iteration %d", i)
			require.Equal(t, d1.Round(), d2.Round())
			l1, l2 := r.leave(d1), r.leave(d2)
			require.NoError(t, await(t, l1, "Leave"))
			require.NoError(t, await(t, l2, "Leave"))
		} else {
			outcomes["withdrew"]++
			require.ErrorIs(t, err1, context.Canceled, "iteration %d", i)
			r.waitMembers("/barrier", 1) // the first member's node is gone, the second's is there
			itest.Pending(t, e2, 200*time.Millisecond, "the second member, alone after the first withdrew")
			require.Len(t, r.members("/barrier"), 1, "iteration %d: one member node", i)
			cancel2()
			require.ErrorIs(t, await(t, e2, "the second member's Enter, cancelled"), context.Canceled)
		}
		cancel2()
		r.requireEmpty("/barrier")
	}
	t.Logf("outcomes: %v", outcomes)
}

// TestDoubleBarrierCloseDuringEnter: Close ends an Enter under way with
// ErrClosed and leaves nothing; Close of a member that is in deletes its
// node, and the ready node with it when nobody else is left; every later
// call fails with ErrClosed.
func TestDoubleBarrierCloseDuringEnter(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	d1 := r.double(r.client(nil, 0), "/barrier", 2)
	res := r.enter(d1)
	r.waitMembers("/barrier", 1)
	require.NoError(t, d1.Close(r.ctx))
	require.ErrorIs(t, await(t, res, "Enter interrupted by Close"), zkrecipes.ErrClosed)
	require.Empty(t, r.kids("/barrier"))
	require.ErrorIs(t, d1.Enter(r.ctx), zkrecipes.ErrClosed)
	require.ErrorIs(t, d1.Leave(r.ctx), zkrecipes.ErrClosed)
	require.NoError(t, d1.Close(r.ctx), "a second Close")

	d2 := r.double(r.client(nil, 0), "/barrier", 1)
	require.NoError(t, d2.Enter(r.ctx))
	kids := r.kids("/barrier")
	require.Len(t, kids, 2)
	require.Contains(t, kids, "ready")
	require.NoError(t, d2.Close(r.ctx))
	require.Empty(t, r.kids("/barrier"), "Close of the last member left its node or the ready node")
	require.ErrorIs(t, d2.Enter(r.ctx), zkrecipes.ErrClosed)
}

// TestDoubleBarrierWithdrawWaitsForItsCreate: a member whose ctx ends while
// its node's create is still on its way must not return before that create
// has landed and been withdrawn. Here the create waits behind the create of
// the barrier's missing parent, held in the member's link until after the
// ctx ended, as a loaded process can leave it. Were Enter to abandon it,
// its withdraw would find no node, it would return, and the node would land
// afterwards: the next member would count a member that believes it is out
// (the chaos suite's barrier workload caught exactly that).
func TestDoubleBarrierWithdrawWaitsForItsCreate(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	link := itest.NewLink(t)
	d1 := r.double(r.client(link, 0), "/held/barrier", 2)
	fired, release := link.HoldRequest(faultlink.OpCreateContainer)
	defer release()
	ctx, cancel := context.WithCancel(r.ctx)
	res := r.enterCtx(ctx, d1)
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the barrier's parent was never created")
	}
	cancel()
	time.Sleep(quiet) // time for an Enter that gave its create up to withdraw first
	release()
	err := await(t, res, "Enter whose ctx ended")
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, zkrecipes.ErrDeletePending, "the withdraw had its connection")
	require.Empty(t, r.members("/held/barrier"), "a node of the member that gave up")
	require.Empty(t, d1.Node())

	d2 := r.double(r.client(nil, 0), "/held/barrier", 2)
	e2 := r.enter(d2)
	r.waitMembers("/held/barrier", 1)
	itest.Pending(t, e2, quiet, "Enter of the second member of two, the first out")
	require.NoError(t, d1.Enter(r.ctx), "the member that gave up enters again")
	require.NoError(t, await(t, e2, "Enter"))
	require.Equal(t, d1.Round(), d2.Round())
	r.leaveAll("/held/barrier", d1, d2)
}
