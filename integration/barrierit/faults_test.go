package barrierit

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestDoubleBarrierShortCut: a member waiting in Enter whose link is cut
// for less than the session timeout keeps its session and its node; the
// barrier opens with it while it is cut (the second member counts it), and
// once the link is back it passes, through the same opening and with the
// same node, its watch set again by the reconnect.
func TestDoubleBarrierShortCut(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, time.Minute)
	link := itest.NewLink(t)
	c1 := r.client(link, 4*time.Second)
	d1 := r.double(c1, "/barrier", 2)
	res := r.enter(d1)
	node := r.waitMembers("/barrier", 1)[0]
	states, unsub := c1.Subscribe()
	defer unsub()
	sid := c1.Session().ID()
	link.Cut()
	itest.WaitState(t, states, client.StateSuspended, sid, 10*time.Second)
	d2 := r.double(r.client(nil, 0), "/barrier", 2)
	require.NoError(t, d2.Enter(r.ctx), "the second member counts the cut one")
	itest.Pending(t, res, quiet, "Enter while cut")
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, sid, 10*time.Second)
	require.NoError(t, await(t, res, "Enter once the link is back"))
	require.Equal(t, d2.Round(), d1.Round())
	require.Equal(t, "/barrier/"+node, d1.Node(), "the same node")
	r.leaveAll("/barrier", d1, d2)
}

// TestDoubleBarrierSessionExpiry: a member whose session is lost while it
// waits in Enter gets ErrLost (and ErrSessionLost), and its node is gone,
// so the next member still waits; entering again, it is counted and both
// pass. Then one of the two, inside the barrier, loses its session: the
// other's Leave returns once the server expired the lost one's node, and
// the lost one's Leave, once its link is back, returns ErrLost (its node
// was gone before it called Leave). Nothing is left.
func TestDoubleBarrierSessionExpiry(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, 2*time.Minute)
	link := itest.NewLink(t)
	c1 := r.client(link, time.Second)
	d1 := r.double(c1, "/barrier", 2)
	states, unsub := c1.Subscribe()
	defer unsub()

	res := r.enter(d1)
	r.waitMembers("/barrier", 1)
	sid := c1.Session().ID()
	link.Cut()
	itest.WaitState(t, states, client.StateLost, sid, 10*time.Second)
	err := await(t, res, "Enter whose session was lost")
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	require.ErrorIs(t, err, zkrecipes.ErrSessionLost)
	r.requireEmpty("/barrier") // the server expired the session's node
	d2 := r.double(r.client(nil, 0), "/barrier", 2)
	e2 := r.enter(d2)
	r.waitMembers("/barrier", 1)
	itest.Pending(t, e2, quiet, "Enter with the lost member's node gone")
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, 0, 20*time.Second)
	require.NoError(t, d1.Enter(r.ctx), "entering again")
	require.NoError(t, await(t, e2, "Enter"))
	require.Equal(t, d1.Round(), d2.Round())

	sid = c1.Session().ID()
	link.Cut()
	itest.WaitState(t, states, client.StateLost, sid, 10*time.Second)
	require.NoError(t, d2.Leave(r.ctx), "Leave with the other member's node expired")
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, 0, 20*time.Second)
	err = d1.Leave(r.ctx)
	require.ErrorIs(t, err, zkrecipes.ErrLost, "Leave of a member whose node went with its session")
	require.ErrorIs(t, d1.Leave(r.ctx), barrier.ErrNotEntered, "the member is out")
	r.requireEmpty("/barrier")
}

// TestDoubleBarrierEnsemble runs on a 3-server ensemble. Three members,
// each its own client on all three servers. The first waits in Enter and
// its server is killed: it moves to another server in the same session,
// its watch with it, and when the other two enter all three pass through
// one opening. Then, while they leave, the server of another member is
// stopped: every Leave returns, and nothing is left on any server.
func TestDoubleBarrierEnsemble(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	r := newRig(t, cl, 2*time.Minute)
	var cs []*client.Client
	var ds []*barrier.Double
	for range 3 {
		c := r.client(nil, 4*time.Second)
		cs, ds = append(cs, c), append(ds, r.double(c, "/barrier", 3))
	}
	first := r.enter(ds[0])
	r.waitMembers("/barrier", 1)
	sid := cs[0].Session().ID()
	killed := serverOf(t, cl, cs[0])
	require.NoError(t, cl.KillServer(r.ctx, killed))
	others := []<-chan error{r.enter(ds[1]), r.enter(ds[2])}
	require.NoError(t, await(t, first, "Enter of the member whose server was killed"))
	for _, e := range others {
		require.NoError(t, await(t, e, "Enter"))
	}
	require.Equal(t, sid, cs[0].Session().ID(), "the first member kept its session")
	require.Equal(t, ds[0].Round(), ds[1].Round())
	require.Equal(t, ds[0].Round(), ds[2].Round())
	require.NoError(t, cl.StartServer(r.ctx, killed))
	require.NoError(t, cl.WaitServing(r.ctx, killed))

	var left []<-chan error
	for _, d := range ds {
		left = append(left, r.leave(d))
	}
	stopped := serverOf(t, cl, cs[1])
	require.NoError(t, cl.StopServer(r.ctx, stopped))
	for _, l := range left {
		require.NoError(t, await(t, l, "Leave"))
	}
	require.NoError(t, cl.StartServer(r.ctx, stopped))
	require.NoError(t, cl.WaitServing(r.ctx, stopped))
	r.requireEmpty("/barrier")
	for i := range cl.Size() {
		c := itest.Connect(t, cl, itest.Opts{NS: r.ns, Extra: []client.Option{client.WithServers(cl.Addr(i))}})
		itest.Eventually(t, 15*time.Second, "nothing left on each server", func() bool {
			kids, err := itest.TryChildren(c, "/barrier")
			return err == nil && len(kids) == 0
		})
	}
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
