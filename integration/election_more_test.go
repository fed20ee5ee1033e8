package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestLatchPathDeleted ports testGetChildrenHitsNoNode: the election's
// nodes and its path are deleted under two latches; both queue again
// (the path made anew), exactly one leads, and Leader names it.
func TestLatchPathDeleted(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	ta := elAwait(t, a, 10*time.Second)
	for _, n := range elNodes(t, obs) {
		require.NoError(t, obs.DeleteIfExists(ctx, elPath+"/"+n))
	}
	require.NoError(t, obs.DeleteIfExists(ctx, elPath))
	require.True(t, waitClosed(ta.Done(), 10*time.Second), "a's term outlived its node")
	eventually(t, 15*time.Second, "both latches queue again, one leads", func() bool {
		return len(elNodes(t, obs)) == 2 && len(elLeading([]*election.Latch{a, b})) == 1
	})
	leader := a
	if b.Leading() {
		leader = b
	}
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, leader.ID(), p.ID)
	require.Equal(t, leader.Term().Token(), p.Token)
}

// TestRunKillSessionThenClose ports
// testKillSessionThenCloseShouldElectNewLeader: the leader's session is
// lost (its link blackholed past the session timeout); its lead sees
// ErrLost, the other participant leads, and once the first Run is stopped
// it leaves nothing behind and exactly one node is left: the leader's.
func TestRunKillSessionThenClose(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	ac := connect(t, clientOpts{ns: ns, link: link, timeout: elShortSession})
	terms := make(chan *election.Term, 10)
	lead := func(ctx context.Context, term *election.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	}
	actx, acancel := context.WithCancel(ctx)
	defer acancel()
	a := elRun(actx, ac, "a", lead)
	ta := await(t, terms, 10*time.Second, "a's term")
	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	b := elRun(bctx, connect(t, clientOpts{ns: ns}), "b", lead)
	waitChildren(t, obs, elPath, 2)
	end := elWatchEnd(ta)
	link.Blackhole()
	tb := await(t, terms, 20*time.Second, "b's term")
	bAt := time.Now()
	require.True(t, waitClosed(end.done, time.Second))
	require.True(t, end.at.Before(bAt), "a's term ended after b's started")
	require.ErrorIs(t, ta.Err(), zkrecipes.ErrLost)
	require.Equal(t, "b", tb.ID())
	acancel()
	link.Restore()
	require.ErrorIs(t, await(t, a, 15*time.Second, "a's Run"), context.Canceled)
	eventually(t, 10*time.Second, "only b's node is left", func() bool {
		return len(elNodes(t, obs)) == 1
	})
	require.Equal(t, elBase(tb.Node()), elNodes(t, obs)[0])
	require.NoError(t, tb.Err())
	bcancel()
	require.ErrorIs(t, await(t, b, 10*time.Second, "b's Run"), context.Canceled)
	require.Empty(t, elNodes(t, obs))
}

// TestRunFlapping: the connection of a participant drops right after its
// create reached the server (the reply never comes back). Its protected
// create finds its node again: no orphan is left, it leads on that one
// node, and when it stops, a new participant wins.
func TestRunFlapping(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	ac := connect(t, clientOpts{ns: ns, link: link})
	// Make the path first, so the dropped create is the node's own.
	_, err := obs.Create(ctx, elPath+"/foreign", nil, 0, client.WithParents())
	require.NoError(t, err)
	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	terms := make(chan *election.Term, 10)
	lead := func(ctx context.Context, term *election.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	}
	actx, acancel := context.WithCancel(ctx)
	defer acancel()
	a := elRun(actx, ac, "a", lead)
	await(t, fired, 10*time.Second, "the dropped create")
	ta := await(t, terms, 20*time.Second, "a's term")
	require.Equal(t, "a", ta.ID())
	ps, err := election.Participants(ctx, obs, elPath)
	require.NoError(t, err)
	require.Len(t, ps, 1, "an orphan node was left: %+v", ps)
	require.Equal(t, ta.Node(), ps[0].Node)
	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	b := elRun(bctx, connect(t, clientOpts{ns: ns}), "b", lead)
	acancel()
	require.ErrorIs(t, await(t, a, 10*time.Second, "a's Run"), context.Canceled)
	tb := await(t, terms, 10*time.Second, "b's term")
	require.Equal(t, "b", tb.ID())
	bcancel()
	require.ErrorIs(t, await(t, b, 10*time.Second, "b's Run"), context.Canceled)
	require.Equal(t, []string{"foreign"}, elNodes(t, obs))
}

// TestRunNeverOverlapsUnderCuts: three participants, each its own client
// and link; twelve times the leader's link is cut while it leads (its term
// ends at the suspension) and restored a moment later. Terms never overlap
// (an in-process detector: the next lead starts only after the last one
// returned and its node went), tokens grow, and each leads.
func TestRunNeverOverlapsUnderCuts(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx, cancel := context.WithCancel(ctxT(t, 120*time.Second))
	defer cancel()
	const n, rounds = 3, 12
	var d elTerms
	leading := make(chan int, 1)
	var links []*faultlink.Link
	var runs []<-chan error
	for i := 0; i < n; i++ {
		link := newLink(t)
		links = append(links, link)
		c := connect(t, clientOpts{ns: ns, link: link, timeout: 4 * time.Second})
		runs = append(runs, elRun(ctx, c, fmt.Sprint(i), func(ctx context.Context, term *election.Term) error {
			d.enter(term.ID(), term.Token())
			defer d.leave()
			select {
			case leading <- i:
			case <-ctx.Done():
			}
			<-ctx.Done()
			return nil
		}))
	}
	for r := 0; r < rounds; r++ {
		i := await(t, leading, 20*time.Second, fmt.Sprint("a leader in round ", r))
		links[i].Cut()
		time.Sleep(50 * time.Millisecond)
		links[i].Restore()
	}
	cancel()
	for i, r := range runs {
		require.ErrorIs(t, await(t, r, 15*time.Second, fmt.Sprint("Run ", i)), context.Canceled)
	}
	max, bad, ids, _ := d.snapshot()
	t.Logf("%d terms: %v", len(ids), ids)
	require.Equal(t, 1, max, "two terms at once")
	require.Zero(t, bad, "a token did not grow")
	require.GreaterOrEqual(t, len(ids), rounds)
	for i := 0; i < n; i++ {
		require.Contains(t, ids, fmt.Sprint(i))
	}
}
