package integration

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// TestLatchSessionInterruptionNoBrainSplit ports Curator's
// testSessionInterruptionDoNotCauseBrainSplit, in 20 rounds (the issue's
// "20 of 20"; EL_PARTITION_ROUNDS=N sets how many), run by two elections
// at once (each on its own path, with its own clients and links, ten rounds
// each, so that the 20 fit in about 45 s): the leader's link is blackholed
// past its session timeout. Its term's context is cancelled (at the
// suspension) before the other participant's term starts (both instants
// recorded); once its link is back it queues again with a new node, never
// leads on its stale one, and leads again only after the other closes,
// with a greater token.
func TestLatchSessionInterruptionNoBrainSplit(t *testing.T) {
	noLeaks(t)
	rounds := 20
	if v, err := strconv.Atoi(os.Getenv("EL_PARTITION_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	const lanes = 2
	for lane := 0; lane < lanes; lane++ {
		n := rounds / lanes
		if lane < rounds%lanes {
			n++
		}
		t.Run(fmt.Sprint("election", lane), func(t *testing.T) {
			t.Parallel()
			elBrainSplitRounds(t, n)
		})
	}
}

// elBrainSplitRounds runs rounds rounds of the brain-split test on one
// election path of its own.
func elBrainSplitRounds(t *testing.T, rounds int) {
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	lc := connect(t, clientOpts{ns: ns, link: link, timeout: elShortSession})
	old := elLatch(t, lc, "old")
	for round := 0; round < rounds; round++ {
		other := elLatch(t, connect(t, clientOpts{ns: ns}), "other")
		term := elAwait(t, old, 15*time.Second)
		_, err := election.Participants(ctx, obs, elPath)
		require.NoError(t, err)
		end := elWatchEnd(term)
		res := elAwaitAsync(ctx, other)
		sess := lc.Session()
		cut := time.Now()
		link.Blackhole()
		r := await(t, res, 20*time.Second, "the other latch's Await")
		require.NoError(t, r.err)
		require.True(t, waitClosed(end.done, time.Second), "the partitioned leader's term never ended")
		t.Logf("round %d: blackholed at 0; old term cancelled at %v; new term at %v (margin %v)",
			round, end.at.Sub(cut), r.at.Sub(cut), r.at.Sub(end.at))
		require.True(t, end.at.Before(r.at), "the old term ended after the new one started")
		require.ErrorIs(t, term.Err(), zkrecipes.ErrLost)

		require.Eventually(t, func() bool { return errors.Is(sess.Err(), zkrecipes.ErrSessionLost) },
			10*time.Second, pollEvery, "the partitioned client gives its session up")
		link.Restore()
		eventually(t, 15*time.Second, "the old latch queues again with a new node", func() bool {
			n := old.Node()
			return n != "" && n != term.Node()
		})
		require.False(t, exists(t, obs, term.Node()), "the stale node is still there")
		elNoLeaderFor(t, 500*time.Millisecond, old)
		require.True(t, other.Leading())
		require.Equal(t, []string{elBase(other.Node()), elBase(old.Node())}, elSorted(t, obs))

		require.NoError(t, elClose(other))
		next := elAwait(t, old, 15*time.Second)
		require.NotEqual(t, term.Node(), next.Node())
		require.Greater(t, next.Token(), r.term.Token())
		require.Equal(t, lc.Session(), next.Session())
	}
}

// TestLatchShortCutKeepsNodeAndToken: a cut shorter than the session ends
// the term at the suspension, but after the reconnect (same session) the
// latch leads again on the same node with the same token: nothing deleted
// or made again (Curator's CURATOR-644/645), and the follower never leads.
func TestLatchShortCutKeepsNodeAndToken(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	lc := connect(t, clientOpts{ns: ns, link: link, timeout: 4 * time.Second})
	l := elLatch(t, lc, "leader")
	f := elLatch(t, connect(t, clientOpts{ns: ns}), "follower")
	for round := 0; round < 3; round++ {
		t1 := elAwait(t, l, 10*time.Second)
		sess := lc.Session()
		before := elNodes(t, obs)
		link.Cut()
		require.True(t, waitClosed(t1.Done(), 5*time.Second), "the term outlived the suspension")
		require.ErrorIs(t, t1.Err(), zkrecipes.ErrLost)
		time.Sleep(200 * time.Millisecond)
		link.Restore()
		t2 := elAwait(t, l, 10*time.Second)
		require.NotSame(t, t1, t2)
		require.Equal(t, t1.Node(), t2.Node())
		require.Equal(t, t1.Token(), t2.Token())
		require.Same(t, sess, t2.Session())
		require.NoError(t, sess.Err())
		require.Equal(t, before, elNodes(t, obs), "a node was deleted or made")
		require.False(t, f.Leading())
	}
}

// TestLatchLostOnSessionLossOnly: with WithLostOnSessionLossOnly a short
// cut does not end the term at all.
func TestLatchLostOnSessionLossOnly(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	link := newLink(t)
	lc := connect(t, clientOpts{ns: ns, link: link, timeout: 4 * time.Second})
	l := elLatch(t, lc, "leader", election.WithLostOnSessionLossOnly())
	term := elAwait(t, l, 10*time.Second)
	link.Cut()
	require.Eventually(t, func() bool { return lc.State() == client.StateSuspended },
		5*time.Second, pollEvery, "the client is suspended")
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, term.Err(), "the term ended at a suspension despite WithLostOnSessionLossOnly")
	link.Restore()
	require.Eventually(t, func() bool { return lc.State() == client.StateReconnected },
		10*time.Second, pollEvery, "the client reconnects")
	require.NoError(t, term.Err())
	require.Same(t, term, l.Term())
}
