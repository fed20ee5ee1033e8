package barrierit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
)

// TestDoubleBarrierStaleReady: a ready node left behind by a round that
// is over (its last member lost before it could delete it) does not let a
// lone member through, as it does with Curator: the member finds no member
// of that opening left, deletes it, and waits for a real second member;
// the two pass through a new opening.
func TestDoubleBarrierStaleReady(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	_, err := r.c.Create(r.ctx, "/barrier/ready", nil, 0, client.WithParents())
	require.NoError(t, err)
	_, stale, err := r.c.Exists(r.ctx, "/barrier/ready")
	require.NoError(t, err)

	d1 := r.double(r.client(nil, 0), "/barrier", 2)
	res := r.enter(d1)
	itest.Eventually(t, 15*time.Second, "the stale ready node deleted", func() bool {
		return !itest.Exists(t, r.c, "/barrier/ready")
	})
	itest.Pending(t, res, quiet, "Enter of a lone member beside a stale ready node")
	d2 := r.double(r.client(nil, 0), "/barrier", 2)
	require.NoError(t, d2.Enter(r.ctx))
	require.NoError(t, await(t, res, "Enter"))
	require.Equal(t, d1.Round(), d2.Round())
	require.Greater(t, d1.Round(), stale.Czxid, "a new opening")
	r.leaveAll("/barrier", d1, d2)
}

// TestDoubleBarrierNotTwice: a member never passes the same opening twice.
// Three members are in; one gives up leaving (its ctx ends while the other
// two are still in) and enters again while the ready node of that opening
// is still there. With Curator it would pass at once (the barrier is
// open); here it waits, without a node (so the other two, leaving, do not
// wait for it), until that opening's ready node is gone, and all three
// meet again through a new opening.
func TestDoubleBarrierNotTwice(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	var ds []*barrier.Double
	var entered []<-chan error
	for range 3 {
		d := r.double(r.client(nil, 0), "/barrier", 3)
		ds, entered = append(ds, d), append(entered, r.enter(d))
	}
	for _, e := range entered {
		require.NoError(t, await(t, e, "Enter"))
	}
	first := ds[0].Round()
	ctx, cancel := context.WithTimeout(r.ctx, 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, ds[2].Leave(ctx), context.DeadlineExceeded, "Leave with the other two still in")
	again := r.enter(ds[2])
	itest.Pending(t, again, quiet, "Enter again while the opening it passed is still open")
	l0, l1 := r.leave(ds[0]), r.leave(ds[1])
	require.NoError(t, await(t, l0, "Leave"))
	require.NoError(t, await(t, l1, "Leave"))
	itest.Pending(t, again, quiet, "Enter again, alone")
	e0, e1 := r.enter(ds[0]), r.enter(ds[1])
	require.NoError(t, await(t, e0, "Enter"))
	require.NoError(t, await(t, e1, "Enter"))
	require.NoError(t, await(t, again, "Enter again"))
	require.Greater(t, ds[2].Round(), first)
	require.Equal(t, ds[0].Round(), ds[2].Round())
	var left []<-chan error
	for _, d := range ds {
		left = append(left, r.leave(d))
	}
	for _, l := range left {
		require.NoError(t, await(t, l, "Leave"))
	}
	r.requireEmpty("/barrier")
}

// TestBarrierBadUse: bad input on a live server gives typed errors and
// leaves nothing: invalid paths and member counts, a nil client, Enter
// twice (ErrEntered, still one node), Leave without Enter
// (ErrNotEntered), calls after Close and after the client closed
// (ErrClosed).
func TestBarrierBadUse(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	c := r.client(nil, 0)
	for _, p := range []string{"", "barrier", "/", "/barrier/", "/a//b", "/zookeeper/b"} {
		_, err := barrier.NewDouble(c, p, 2)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "%q", p)
		_, err = barrier.New(c, p)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "%q", p)
	}
	for _, n := range []int{0, -3} {
		_, err := barrier.NewDouble(c, "/barrier", n)
		require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "n=%d", n)
	}
	_, err := barrier.NewDouble(nil, "/barrier", 2)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = barrier.New(nil, "/barrier")
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)

	d := r.double(c, "/barrier", 1)
	require.ErrorIs(t, d.Leave(r.ctx), barrier.ErrNotEntered)
	require.NoError(t, d.Enter(r.ctx))
	require.ErrorIs(t, d.Enter(r.ctx), barrier.ErrEntered)
	require.Len(t, r.members("/barrier"), 1, "a second Enter made a node")
	require.NoError(t, d.Leave(r.ctx))
	require.ErrorIs(t, d.Leave(r.ctx), barrier.ErrNotEntered)
	require.NoError(t, d.Close(r.ctx))
	require.ErrorIs(t, d.Enter(r.ctx), zkrecipes.ErrClosed)
	require.ErrorIs(t, d.Leave(r.ctx), zkrecipes.ErrClosed)

	b := r.gate(c, "/gate")
	require.NoError(t, b.Close())
	require.ErrorIs(t, b.Set(r.ctx), zkrecipes.ErrClosed)

	d2 := r.double(c, "/barrier", 2)
	res := r.enter(d2)
	r.waitMembers("/barrier", 1)
	require.NoError(t, c.Close())
	require.ErrorIs(t, await(t, res, "Enter when the client closes"), zkrecipes.ErrClosed)
	require.ErrorIs(t, d2.Enter(r.ctx), zkrecipes.ErrClosed)
	require.NoError(t, d2.Close(r.ctx))
	require.ErrorIs(t, r.gate(c, "/gate").Set(r.ctx), zkrecipes.ErrClosed)

	r.requireEmpty("/barrier")
	require.False(t, itest.Exists(t, r.c, "/gate"), "a closed barrier set its node")
}
