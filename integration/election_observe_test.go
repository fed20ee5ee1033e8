package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// elObserved waits for the next observation and returns its leader's id,
// "" for no leader.
func elObserved(t testing.TB, ch <-chan election.Observation, what string) string {
	t.Helper()
	o, ok := <-elWithin(ch, 10*time.Second)
	require.True(t, ok, "%s: no observation within 10s (or the channel closed)", what)
	if o.Leader == nil {
		return ""
	}
	require.True(t, o.Leader.Leader)
	return o.Leader.ID
}

// elWithin forwards one value of ch, or closes the result after d.
func elWithin(ch <-chan election.Observation, d time.Duration) <-chan election.Observation {
	out := make(chan election.Observation, 1)
	go func() {
		defer close(out)
		select {
		case o, ok := <-ch:
			if ok {
				out <- o
			}
		case <-time.After(d):
		}
	}()
	return out
}

// TestElectionLeaderNoLeader: Leader on a missing path and on an empty one
// is ErrNoLeader (never a made-up participant); Participants is empty.
func TestElectionLeaderNoLeader(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	c := connect(t, clientOpts{ns: ns})
	_, err := election.Leader(ctx, c, elPath)
	require.ErrorIs(t, err, election.ErrNoLeader)
	ps, err := election.Participants(ctx, c, elPath)
	require.NoError(t, err)
	require.Empty(t, ps)
	_, err = c.Create(ctx, elPath+"/foreign", nil, 0, client.WithParents())
	require.NoError(t, err)
	_, err = election.Leader(ctx, c, elPath)
	require.ErrorIs(t, err, election.ErrNoLeader, "a foreign child is no participant")
	ps, err = election.Participants(ctx, c, elPath)
	require.NoError(t, err)
	require.Empty(t, ps)
}

// TestElectionObserveResign: Observe reports no leader on a missing path,
// then a latch's leader, then "no leader" when it resigns (closes), then
// the next leader; then the same for a Run participant on the same path
// (the selector layout). The channel closes only when ctx ends.
func TestElectionObserveResign(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	ch, err := election.Observe(octx, connect(t, clientOpts{ns: ns}), elPath)
	require.NoError(t, err)
	require.Equal(t, "", elObserved(t, ch, "missing path"))

	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	require.Equal(t, "a", elObserved(t, ch, "a started"))
	elAwait(t, a, 10*time.Second)
	require.NoError(t, a.Close(ctx))
	require.Equal(t, "", elObserved(t, ch, "a resigned"))
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	require.Equal(t, "b", elObserved(t, ch, "b started"))
	require.NoError(t, b.Close(ctx))
	require.Equal(t, "", elObserved(t, ch, "b resigned"))

	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	led := make(chan struct{})
	done := elRun(rctx, connect(t, clientOpts{ns: ns}), "runner", func(ctx context.Context, term *election.Term) error {
		close(led)
		<-ctx.Done()
		return nil
	}, election.WithRunOnce())
	require.Equal(t, "runner", elObserved(t, ch, "a Run leads"))
	await(t, led, 10*time.Second, "the Run's term")
	rcancel()
	<-done
	require.Equal(t, "", elObserved(t, ch, "the Run resigned"))

	pending(t, ch, 200*time.Millisecond, "Observe with no change")
	ocancel()
	require.Eventually(t, func() bool {
		select {
		case _, ok := <-ch:
			return !ok
		default:
			return false
		}
	}, 5*time.Second, pollEvery, "Observe's channel closes when ctx ends")
}

// TestElectionObserveCoalesces: a reader that does not read while the
// leader changes three times gets the latest leader, and never an older
// one after it.
func TestElectionObserveCoalesces(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	oc := connect(t, clientOpts{ns: ns})
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	ch, err := election.Observe(octx, oc, elPath)
	require.NoError(t, err)
	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	elAwait(t, a, 10*time.Second)
	require.NoError(t, a.Close(ctx))
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	elAwait(t, b, 10*time.Second)
	time.Sleep(300 * time.Millisecond) // let the observer catch up, unread
	// What is read must follow the true history ("", a, "", b) in order,
	// skipping any, and end at b: usually b is the only value read.
	history := []string{"", "a", "", "b"}
	var got []string
	for len(got) == 0 || got[len(got)-1] != "b" {
		require.Less(t, len(got), len(history), "read %q", got)
		got = append(got, elObserved(t, ch, "the latest leader"))
	}
	t.Logf("read %q", got)
	i := 0
	for _, g := range got {
		for i < len(history) && history[i] != g {
			i++
		}
		require.Less(t, i, len(history), "read %q: not in the order of %q", got, history)
		i++
	}
	pending(t, ch, 300*time.Millisecond, "an observation after the latest")
}

// TestElectionObserveReconnect: an observer whose link is cut while the
// leader changes reports, once back, the final leader and never an older
// one after it; its channel stays open.
func TestElectionObserveReconnect(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	link := newLink(t)
	oc := connect(t, clientOpts{ns: ns, link: link})
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	ch, err := election.Observe(octx, oc, elPath)
	require.NoError(t, err)
	require.Equal(t, "", elObserved(t, ch, "missing path"))
	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	require.Equal(t, "a", elObserved(t, ch, "a started"))
	states, cancel := oc.Subscribe()
	defer cancel()
	sid := oc.Session().ID()
	link.Cut()
	clExpect(t, states, client.StateSuspended, sid, 10*time.Second)
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	require.NoError(t, a.Close(ctx))
	elAwait(t, b, 10*time.Second)
	link.Restore()
	clExpect(t, states, client.StateReconnected, sid, 10*time.Second)
	got := elObserved(t, ch, "after the reconnect")
	if got == "" { // the observer may have seen a's node go before b's showed
		got = elObserved(t, ch, "after the reconnect")
	}
	require.Equal(t, "b", got)
	pending(t, ch, 300*time.Millisecond, "an observation after the final leader")
}
