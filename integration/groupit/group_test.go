package groupit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// TestGroupMemberBasic ports Curator's TestGroupMember.testBasic: a member
// is in its own map before it starts; two members see both; one leaves and
// the other sees it go; a data change reaches the map. Once with both
// members on one client (as Curator's test has them), once on two.
func TestGroupMemberBasic(t *testing.T) {
	for _, twoClients := range []bool{false, true} {
		name := "one client"
		if twoClients {
			name = "two clients"
		}
		t.Run(name, func(t *testing.T) {
			itest.NoLeaks(t)
			ns := itest.Namespace(t)
			c1 := itest.Connect(t, shared, itest.Opts{NS: ns})
			c2 := c1
			if twoClients {
				c2 = itest.Connect(t, shared, itest.Opts{NS: ns})
			}
			ctx := itest.Ctx(t, 30*time.Second)

			m1, err := group.New(c1, "/member", "1", []byte("one"))
			require.NoError(t, err)
			require.Equal(t, "1=one", render(m1.Members()), "a member is in its own map before it starts")
			events, stop := m1.Events()
			defer stop()
			require.NoError(t, m1.Start(ctx))
			defer m1.Close(ctx)
			m2 := join(t, c2, "/member", "2", "two")

			sees(t, m1, "1=one,2=two")
			sees(t, m2, "1=one,2=two")
			require.Equal(t, "1=one,2=two", onServer(t, c1, "/member"))

			require.NoError(t, m2.Close(ctx))
			sees(t, m1, "1=one")
			require.Equal(t, "1=one", onServer(t, c1, "/member"), "the member that left has no node")

			require.NoError(t, m1.SetData(ctx, []byte("something")))
			sees(t, m1, "1=something")
			require.Equal(t, "1=something", onServer(t, c1, "/member"))

			// m1's events, in order per member: 1 joined, the load, 2 joined and
			// left, 1 updated.
			var got []string
			itest.Eventually(t, 10*time.Second, "m1's events", func() bool {
				for {
					select {
					case ev := <-events:
						got = append(got, ev.Type.String()+" "+ev.ID)
						continue
					default:
					}
					return len(got) >= 5 && got[len(got)-1] == "UPDATED 1"
				}
			})
			require.Contains(t, got, "LOADED ")
			require.Equal(t, []string{"JOINED 2", "LEFT 2"}, only(got, "2"))
			require.Equal(t, []string{"JOINED 1", "UPDATED 1"}, only(got, "1"))
		})
	}
}

// only keeps the events of member id.
func only(events []string, id string) []string {
	var out []string
	for _, e := range events {
		if len(e) > len(id) && e[len(e)-len(id)-1:] == " "+id {
			out = append(out, e)
		}
	}
	return out
}

// TestGroupMemberSessionExpiry: a member whose session expires (its link
// cut past the session timeout) joins again with its latest data; the
// other member sees it leave and come back; in the end its node is owned by
// its live session and nothing else is left.
func TestGroupMemberSessionExpiry(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	cut := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: time.Second})
	other := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 60*time.Second)

	a := join(t, cut, "/g", "a", "a0")
	b := join(t, other, "/g", "b", "b0")
	sees(t, b, "a=a0,b=b0")
	events, stop := b.Events()
	defer stop()

	old := cut.Session()
	link.Cut()
	setDone := make(chan error, 1)
	go func() { setDone <- a.SetData(ctx, []byte("a1")) }() // while cut: kept for the re-create
	itest.Eventually(t, 20*time.Second, "the cut member's session to end", func() bool { return itest.Closed(old.Done()) })
	sees(t, b, "b=b0")
	link.Restore()
	require.NoError(t, itest.Await(t, setDone, 30*time.Second, "SetData"))
	sees(t, b, "a=a1,b=b0")
	sees(t, a, "a=a1,b=b0")

	sess, err := cut.WaitSession(ctx)
	require.NoError(t, err)
	_, st, err := other.Get(ctx, "/g/a")
	require.NoError(t, err)
	require.Equal(t, sess.ID(), st.EphemeralOwner, "a's node belongs to its live session")
	require.Equal(t, []string{"a", "b"}, itest.Children(t, other, "/g"))

	var got []string
	itest.Eventually(t, 10*time.Second, "b to see a leave and join", func() bool {
		select {
		case ev := <-events:
			got = append(got, ev.Type.String()+" "+ev.ID)
		default:
		}
		return len(only(got, "a")) >= 2
	})
	require.Equal(t, []string{"LEFT a", "JOINED a"}, only(got, "a"))
}

// TestGroupMemberEnsemble: on three servers, killing the server a member is
// connected to loses nothing: both members end seeing both, one node each.
func TestGroupMemberEnsemble(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktestEnsemble(t)
	ns := itest.Namespace(t)
	c1 := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 6 * time.Second})
	c2 := itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 6 * time.Second})
	m1 := join(t, c1, "/g", "m1", "x")
	m2 := join(t, c2, "/g", "m2", "y")
	sees(t, m1, "m1=x,m2=y")

	ctx := itest.Ctx(t, 60*time.Second)
	victim := serverOf(t, cl, c1)
	require.NoError(t, cl.KillServer(ctx, victim))
	require.NoError(t, m1.SetData(ctx, []byte("x2")))
	sees(t, m2, "m1=x2,m2=y")
	require.NoError(t, cl.StartServer(ctx, victim))
	sees(t, m1, "m1=x2,m2=y")
	require.Equal(t, "m1=x2,m2=y", onServer(t, c2, "/g"))
}

// TestGroupMemberBadUse: a second Start and use after Close (of a member
// started, and of one never started) are refused with typed errors that
// say what the member is (not what the client is), and leave nothing on
// the server; a second Close returns the first one's result.
func TestGroupMemberBadUse(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 20*time.Second)
	m := join(t, c, "/g", "a", "")
	requireSays(t, m.Start(ctx), zkrecipes.ErrAlreadyStarted, "zkrecipes: group member is already started")
	require.NoError(t, m.Close(ctx))
	require.NoError(t, m.Close(ctx), "a second Close returns the first one's result")
	requireSays(t, m.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
	requireSays(t, m.SetData(ctx, []byte("x")), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
	ch, _ := m.Events()
	_, open := <-ch
	require.False(t, open, "Events after Close is closed")
	require.Empty(t, itest.Children(t, c, "/g"), "nothing left on the server")

	never, err := group.New(c, "/g", "b", nil)
	require.NoError(t, err)
	require.NoError(t, never.Close(ctx), "closing a member never started")
	requireSays(t, never.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
	require.Empty(t, itest.Children(t, c, "/g"))
}

// requireSays requires err to match sentinel and to say msg: what is
// closed or not started, the recipe or its client.
func requireSays(t *testing.T, err, sentinel error, msg string) {
	t.Helper()
	require.ErrorIs(t, err, sentinel)
	require.ErrorContains(t, err, msg)
}
