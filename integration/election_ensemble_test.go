package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestLatchInCluster ports TestLeaderLatch.testInCluster: a three-server
// ensemble, three latches whose clients each know only one server. Killing
// the leader's server ends its term (its client cannot reach any other
// server) and exactly one of the other two leads; once the server is back,
// still exactly one leads.
func TestLatchInCluster(t *testing.T) {
	noLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	ns := namespace(t)
	ctx := ctxT(t, 3*time.Minute)
	var ls []*election.Latch
	for i := 0; i < cl.Size(); i++ {
		c := connect(t, clientOpts{cluster: cl, ns: ns, timeout: 2 * time.Second,
			extra: []client.Option{client.WithServers(cl.Addr(i))}})
		ls = append(ls, elLatch(t, c, fmt.Sprint(i)))
	}
	eventually(t, 20*time.Second, "one leader", func() bool { return len(elLeading(ls)) == 1 })
	victim := -1
	for i, l := range ls {
		if l.Leading() {
			victim = i
		}
	}
	term := ls[victim].Term()
	require.NotNil(t, term)
	t.Logf("latch %d leads; killing its server", victim)
	require.NoError(t, cl.KillServer(ctx, victim))
	require.True(t, waitClosed(term.Done(), 10*time.Second), "the leader's term outlived its server")
	eventually(t, 30*time.Second, "another latch leads", func() bool {
		ids := elLeading(ls)
		return len(ids) == 1 && ids[0] != fmt.Sprint(victim)
	})
	for i := 0; i < 25; i++ {
		require.Len(t, elLeading(ls), 1, "leaders after the kill")
		time.Sleep(pollEvery)
	}
	require.NoError(t, cl.StartServer(ctx, victim))
	eventually(t, 60*time.Second, "the victim's latch queues again", func() bool {
		n := ls[victim].Node()
		return n != "" && n != term.Node()
	})
	for i := 0; i < 25; i++ {
		require.Len(t, elLeading(ls), 1, "leaders after the restart")
		time.Sleep(pollEvery)
	}
}

// TestLatchNoServerAtStart ports testNoServerAtStart on a dedicated
// server: a latch started while the server is down waits in Start; once
// the server is back, it is elected exactly once.
func TestLatchNoServerAtStart(t *testing.T) {
	noLeaks(t)
	cl := zktest.ForTest(t)
	ns := namespace(t)
	ctx := ctxT(t, 2*time.Minute)
	pol, err := retry.UntilElapsed(60*time.Second, 250*time.Millisecond)
	require.NoError(t, err)
	c := connect(t, clientOpts{cluster: cl, ns: ns, timeout: 10 * time.Second,
		extra: []client.Option{client.WithRetryPolicy(pol)}})
	l, err := election.NewLatch(c, elPath, election.WithID("late"))
	require.NoError(t, err)
	t.Cleanup(func() { elClose(l) })
	require.NoError(t, cl.StopServer(ctx, 0))
	started := make(chan error, 1)
	go func() { started <- l.Start(ctx) }()
	pending(t, started, time.Second, "Start with no server")
	require.False(t, l.Leading())
	require.NoError(t, cl.StartServer(ctx, 0))
	require.NoError(t, await(t, started, 60*time.Second, "Start after the server came up"))
	term := await(t, l.Terms(), 30*time.Second, "the term")
	require.Equal(t, term, elAwait(t, l, time.Second))
	pending(t, l.Terms(), 500*time.Millisecond, "a second term")
	p, err := election.Leader(ctx, c, elPath)
	require.NoError(t, err)
	require.Equal(t, "late", p.ID)
	require.Equal(t, term.Token(), p.Token)
}
