package groupit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// closeWithin is how long a Close(context.Background()) may take without a
// connection: the guaranteed delete gives a reconnect a second, then
// leaves the delete to the background.
const closeWithin = 3 * time.Second

// closeInBackground calls m.Close(context.Background()) on a goroutine of
// its own and returns its result, failing the test when Close has not
// returned within closeWithin.
func closeInBackground(t *testing.T, m *group.Member) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- m.Close(context.Background()) }()
	return itest.Await(t, res, closeWithin, "Close(context.Background()) without a connection")
}

// TestGroupMemberCloseSessionLost: a member whose link is blackholed until
// its session is Lost closes at once with nil (its node went with the
// session: nothing to delete); the server expires the session, and nothing
// is left.
func TestGroupMemberCloseSessionLost(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: 2 * time.Second})
	watcher := itest.Connect(t, shared, itest.Opts{NS: ns})
	m := join(t, c, "/g", "a", "a0")
	require.Equal(t, "a=a0", onServer(t, watcher, "/g"))
	states, unsub := c.Subscribe()
	defer unsub()
	sess := c.Session()

	link.Blackhole()
	itest.WaitState(t, states, client.StateLost, sess.ID(), 20*time.Second)
	require.NoError(t, closeInBackground(t, m), "the node went with its session")
	link.Restore()
	itest.Eventually(t, 20*time.Second, "nothing left once the server expired the session", func() bool {
		kids, err := itest.TryChildren(watcher, "/g")
		return err == nil && len(kids) == 0 && c.PendingDeletes() == 0
	})
}

// TestGroupMemberCloseSuspended: a member whose link is cut (Suspended,
// its session alive) closes within a second or so with ErrDeletePending;
// once the link is back, in the same session, the guaranteed delete
// removes its node.
func TestGroupMemberCloseSuspended(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link, Timeout: 20 * time.Second})
	watcher := itest.Connect(t, shared, itest.Opts{NS: ns})
	m := join(t, c, "/g", "a", "a0")
	states, unsub := c.Subscribe()
	defer unsub()
	sess := c.Session()

	link.Cut()
	itest.WaitState(t, states, client.StateSuspended, sess.ID(), 10*time.Second)
	require.ErrorIs(t, closeInBackground(t, m), zkrecipes.ErrDeletePending, "the session lives: the delete is pending")
	require.Equal(t, "a=a0", onServer(t, watcher, "/g"), "the node went while cut")
	link.Restore()
	itest.WaitState(t, states, client.StateReconnected, sess.ID(), 20*time.Second)
	itest.Eventually(t, 10*time.Second, "the pending delete runs once the session's connection is back", func() bool {
		kids, err := itest.TryChildren(watcher, "/g")
		return err == nil && len(kids) == 0 && c.PendingDeletes() == 0
	})
	require.Same(t, sess, c.Session(), "the session survived")
}

// TestGroupMemberJoinedBeforeLoaded: over many starts, a member's own
// Joined event comes before Loaded (the first load has the member in it),
// whether the member is the first of a new group (its node's create then
// makes the group node too, a slower create than the load of a group that
// is not there yet) or joins one with a member already; and after Close,
// Members is empty: the member has left.
func TestGroupMemberJoinedBeforeLoaded(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	other := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 2*time.Minute)

	for i := range 20 {
		path, id := fmt.Sprintf("/g%d", i), fmt.Sprintf("m%d", i)
		want := id + "=" + id
		if i%2 == 1 {
			join(t, other, path, "old", "o")
			want += ",old=o"
		}
		m, err := group.New(c, path, id, []byte(id))
		require.NoError(t, err)
		events, stop := m.Events()
		require.NoError(t, m.Start(ctx))
		var got []string
		for {
			ev := itest.Await(t, events, 20*time.Second, "group event")
			got = append(got, ev.Type.String()+" "+ev.ID)
			if ev.Type == group.Loaded {
				break
			}
		}
		require.Contains(t, got, "JOINED "+id, "start %d: the first load has no Joined of the member itself: %v", i, got)
		require.Equal(t, want, render(m.Members()), "start %d", i)

		require.NoError(t, m.Close(ctx))
		stop()
		require.Empty(t, m.Members(), "start %d: Members after Close", i)
		kids, err := itest.TryChildren(c, path)
		require.NoError(t, err)
		require.NotContains(t, kids, id, "start %d: the member left", i)
	}
}
