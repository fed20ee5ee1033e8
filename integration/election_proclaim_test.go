package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// Tests of Term.Proclaim (a leader that proclaims, as etcd's
// Election.Proclaim). Helpers of this file start with "pr".

// prObserved waits for the next observation and returns it.
func prObserved(t testing.TB, ch <-chan election.Observation, what string) election.Observation {
	t.Helper()
	o, ok := <-elWithin(ch, 10*time.Second)
	require.True(t, ok, "%s: no observation within 10s", what)
	return o
}

// TestElectionProclaim: the leader proclaims two values without a new
// election: an observer sees the leader with no value, then each value
// once, in order, with the election's version (0, 1, 2) and the same node,
// id and token throughout; Leader and Participants give the leader's value
// and the ids as before; the leader's node keeps its id as data (what
// Curator reads), the election's node holds the value.
func TestElectionProclaim(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	ch, err := election.Observe(octx, obs, elPath)
	require.NoError(t, err)
	require.Nil(t, prObserved(t, ch, "missing path").Leader)

	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	term := elAwait(t, a, 10*time.Second)
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	first := prObserved(t, ch, "a leads")
	require.Equal(t, "a", first.Leader.ID)
	require.Nil(t, first.Leader.Value)
	require.Zero(t, first.Version)

	for i, v := range []string{"10.0.0.5:8080 epoch=1", "10.0.0.5:8080 epoch=2"} {
		require.NoError(t, term.Proclaim(ctx, []byte(v)))
		o := prObserved(t, ch, v)
		require.Equal(t, v, string(o.Leader.Value))
		require.Equal(t, "a", o.Leader.ID)
		require.Equal(t, int32(i+1), o.Version)
		require.Equal(t, first.Leader.Node, o.Leader.Node, "the same node: no new election")
		require.Equal(t, term.Token(), o.Leader.Token)
		data, _, err := obs.Get(ctx, term.Node())
		require.NoError(t, err)
		require.Equal(t, "a", string(data), "the leader's node keeps its id")
	}
	require.NoError(t, term.Proclaim(ctx, []byte("10.0.0.5:8080 epoch=2")))
	pending(t, ch, 300*time.Millisecond, "an observation of the same value again")
	require.True(t, a.Leading(), "proclaiming ends no term")
	require.NoError(t, term.Err())
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "a", p.ID)
	require.Equal(t, "10.0.0.5:8080 epoch=2", string(p.Value))
	ps, err := election.Participants(ctx, obs, elPath)
	require.NoError(t, err)
	require.Len(t, ps, 2)
	require.Equal(t, []string{"a", "b"}, []string{ps[0].ID, ps[1].ID})
	require.Equal(t, "10.0.0.5:8080 epoch=2", string(ps[0].Value))
	require.Nil(t, ps[1].Value)

	// The next leader starts with no value: the old one named a's node.
	require.NoError(t, a.Close(ctx))
	o := prObserved(t, ch, "b leads")
	if o.Leader == nil { // a's node went before b's term showed
		o = prObserved(t, ch, "b leads")
	}
	require.Equal(t, "b", o.Leader.ID)
	require.Nil(t, o.Leader.Value, "a's value is not b's")
	tb := elAwait(t, b, 10*time.Second)
	require.NoError(t, tb.Proclaim(ctx, []byte("b's")))
	require.Equal(t, "b's", string(prObserved(t, ch, "b's value").Leader.Value))
}

// TestElectionProclaimDeposed: a deposed leader's Proclaim fails with
// ErrNotLeader and writes nothing: after its latch closed (its node is
// gone and the next leader's is first), after its term was ended by a
// suspension (its node still there, its data unchanged), and after its
// node was deleted under it (the server refuses the write if the term has
// not noticed yet). The new leader's Proclaim works.
func TestElectionProclaimDeposed(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	ta := elAwait(t, a, 10*time.Second)
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	require.NoError(t, a.Close(ctx))
	require.ErrorIs(t, ta.Proclaim(ctx, []byte("a again")), election.ErrNotLeader)
	tb := elAwait(t, b, 10*time.Second)
	require.NoError(t, tb.Proclaim(ctx, []byte("b leads")))
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "b leads", string(p.Value))
	require.NoError(t, b.Close(ctx))

	// A term ended by a suspension: the node lives on, unchanged.
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 6 * time.Second})
	states, cancel := c.Subscribe()
	defer cancel()
	l := elLatch(t, c, "l")
	tl := elAwait(t, l, 10*time.Second)
	require.NoError(t, tl.Proclaim(ctx, []byte("l v1")))
	sid := c.Session().ID()
	link.Cut()
	clExpect(t, states, client.StateSuspended, sid, 10*time.Second)
	await(t, tl.Done(), 10*time.Second, "the term's end")
	require.ErrorIs(t, tl.Proclaim(ctx, []byte("l v2")), election.ErrNotLeader)
	link.Restore()
	t2 := elAwait(t, l, 20*time.Second)
	require.Equal(t, tl.Node(), t2.Node(), "the same node after the reconnect")
	p, err = election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "l v1", string(p.Value), "the ended term wrote nothing; the value lasts with the node")
	require.ErrorIs(t, tl.Proclaim(ctx, []byte("l v3")), election.ErrNotLeader, "an old term stays ended")
	require.NoError(t, t2.Proclaim(ctx, []byte("l v4")))

	// The node deleted under the leader: refused by the server or the term.
	require.NoError(t, obs.Delete(ctx, t2.Node(), -1))
	require.ErrorIs(t, t2.Proclaim(ctx, []byte("l v5")), election.ErrNotLeader)
	ok, _, err := obs.Exists(ctx, t2.Node())
	require.NoError(t, err)
	require.False(t, ok, "the refused proclaim made no node")
	data, _, err := obs.Get(ctx, elPath)
	require.NoError(t, err)
	require.NotContains(t, string(data), "l v5", "the refused proclaim wrote nothing")
	require.NoError(t, l.Close(ctx))
}

// TestElectionProclaimRun: a Run leader proclaims (Curator's
// LeaderSelector layout): Leader reports it; once lead returns and the
// next campaign's term begins (a new node), that term has no value until
// it proclaims again.
func TestElectionProclaimRun(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	terms := make(chan *election.Term, 4)
	proclaimed := make(chan struct{})
	n := 0
	done := elRun(rctx, connect(t, clientOpts{ns: ns}), "r", func(ctx context.Context, term *election.Term) error {
		n++
		terms <- term
		if n == 1 {
			if err := term.Proclaim(ctx, []byte("r at 10.0.0.9")); err != nil {
				return err
			}
			<-proclaimed
			return nil
		}
		<-ctx.Done()
		return nil
	})
	first := await(t, terms, 10*time.Second, "the first term")
	eventually(t, 10*time.Second, "the value read", func() bool {
		p, err := election.Leader(ctx, obs, elPath)
		return err == nil && p.Node == first.Node() && string(p.Value) == "r at 10.0.0.9"
	})
	close(proclaimed)
	second := await(t, terms, 10*time.Second, "the second term")
	require.NotEqual(t, first.Node(), second.Node(), "a new campaign, a new node")
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, second.Node(), p.Node)
	require.Nil(t, p.Value, "the old term's value is not the new term's")
	require.ErrorIs(t, first.Proclaim(ctx, []byte("late")), election.ErrNotLeader)
	rcancel()
	<-done
}

// TestElectionObserveProclaimsInOrder: a leader proclaims 30 values as
// fast as it can while an observer reads slowly: the observations' values
// follow the proclaimed order with none twice and none older after a
// newer, their versions grow, and the last is the final value.
func TestElectionObserveProclaimsInOrder(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	ch, err := election.Observe(octx, connect(t, clientOpts{ns: ns}), elPath)
	require.NoError(t, err)
	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	term := elAwait(t, a, 10*time.Second)
	const values = 30
	go func() {
		for i := 1; i <= values; i++ {
			_ = term.Proclaim(ctx, fmt.Appendf(nil, "v%d", i))
		}
	}()
	last := -1
	var lastVersion int32 = -1
	seen := 0
	for last != values {
		o := prObserved(t, ch, "a value")
		if o.Leader == nil || o.Leader.Value == nil {
			continue // before a leads, or before its first value
		}
		var i int
		_, err := fmt.Sscanf(string(o.Leader.Value), "v%d", &i)
		require.NoError(t, err)
		require.Greater(t, i, last, "values in order, none twice")
		require.Greater(t, o.Version, lastVersion)
		require.Equal(t, int32(i), o.Version, "value i is version i")
		last, lastVersion = i, o.Version
		seen++
		time.Sleep(5 * time.Millisecond) // a slow reader
	}
	t.Logf("observed %d of %d values", seen, values)
	pending(t, ch, 300*time.Millisecond, "an observation after the final value")
}

// TestElectionProclaimCuratorObserver: a Curator 5.4 LeaderLatch (a Java
// participant that waits behind a Go leader) is not disturbed by the Go
// leader's proclaims: it still names the leader by its id, and once the
// Go latch closes it takes over. (Were the value written into the leader's
// node, the Java latch's one watch, which acts on a deletion only, would
// be spent by the write, and it would never lead.) Then a Go latch joins
// behind Java; Java's leadership is unchanged and Go observers see no
// value for a Java leader.
func TestElectionProclaimCuratorObserver(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 120*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	g := elLatch(t, connect(t, clientOpts{ns: ns}), "go-1")
	term := elAwait(t, g, 10*time.Second)
	java := startJava(t, ctx, "CuratorLatch", shared.ConnectString(), ns+elPath, "java-1", ns+"/stop")
	waitChildren(t, obs, elPath, 2)
	elJavaSays(t, java, "curator: leading=false leader=go-1")
	for i := range 3 {
		require.NoError(t, term.Proclaim(ctx, fmt.Appendf(nil, "go-1@10.0.0.5:8080 epoch=%d", i)))
	}
	time.Sleep(200 * time.Millisecond) // Java's listener saw the writes, if any fire
	require.NoError(t, g.Close(ctx))
	elJavaSays(t, java, "curator: leading=true leader=java-1")
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	require.Equal(t, "java-1", p.ID)
	require.Nil(t, p.Value, "the Go leader's value went with its node")
	_, err = obs.Create(ctx, "/stop", nil, 0)
	require.NoError(t, err)
	out := java.output(t)
	require.Contains(t, out, "curator: done")
	require.NotContains(t, out, "leader=go-1@", "Java names the Go leader by its id only")
}
