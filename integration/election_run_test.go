package integration

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// elRun runs election.Run on a goroutine of its own; its error arrives on
// the channel returned.
func elRun(ctx context.Context, c *client.Client, id string, lead func(context.Context, *election.Term) error, opts ...election.Option) <-chan error {
	ch := make(chan error, 1)
	go func() {
		ch <- election.Run(ctx, c, elPath, lead, append([]election.Option{election.WithID(id)}, opts...)...)
	}()
	return ch
}

// TestRunAutoRequeue ports TestLeaderSelector.testAutoRequeue: one
// participant whose lead returns at once leads again and again; Run
// returns ctx's error once ctx ends, and leaves no node.
func TestRunAutoRequeue(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	ctx, cancel := context.WithCancel(ctxT(t, 30*time.Second))
	defer cancel()
	var d elTerms
	var n atomic.Int32
	done := elRun(ctx, c, "solo", func(ctx context.Context, term *election.Term) error {
		d.enter(term.ID(), term.Token())
		defer d.leave()
		if n.Add(1) == 3 {
			cancel()
		}
		return nil
	})
	err := await(t, done, 20*time.Second, "Run")
	require.ErrorIs(t, err, context.Canceled)
	max, bad, ids, _ := d.snapshot()
	require.GreaterOrEqual(t, len(ids), 2, "led fewer than twice")
	require.Equal(t, 1, max)
	require.Zero(t, bad)
	require.Empty(t, elNodes(t, c))
}

// TestRunOnce: WithRunOnce returns lead's error after one term, and the
// node is gone by then.
func TestRunOnce(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	boom := fmt.Errorf("boom")
	var terms atomic.Int32
	err := election.Run(ctx, c, elPath, func(ctx context.Context, term *election.Term) error {
		terms.Add(1)
		require.NoError(t, term.Err())
		return boom
	}, election.WithRunOnce())
	require.ErrorIs(t, err, boom)
	require.EqualValues(t, 1, terms.Load())
	require.Empty(t, elNodes(t, c))
}

// TestRunInterrupt ports testInterruptLeadership: Interrupt cancels the
// leader's term (ErrInterrupted); once its lead returned, the other
// participant leads, and the interrupted one requeued and leads after it.
func TestRunInterrupt(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx, cancel := context.WithCancel(ctxT(t, 60*time.Second))
	defer cancel()
	terms := make(chan *election.Term, 10)
	var returned sync.Map // term -> lead returned
	lead := func(ctx context.Context, term *election.Term) error {
		terms <- term
		<-ctx.Done()
		returned.Store(term, true)
		return nil
	}
	var d elTerms
	detect := func(ctx context.Context, term *election.Term) error {
		d.enter(term.ID(), term.Token())
		defer d.leave()
		return lead(ctx, term)
	}
	a := elRun(ctx, connect(t, clientOpts{ns: ns}), "a", detect)
	t1 := await(t, terms, 10*time.Second, "a's term")
	b := elRun(ctx, connect(t, clientOpts{ns: ns}), "b", detect)
	obs := connect(t, clientOpts{ns: ns})
	waitChildren(t, obs, elPath, 2)
	require.Equal(t, "a", t1.ID())
	t1.Interrupt()
	t2 := await(t, terms, 10*time.Second, "b's term")
	require.ErrorIs(t, t1.Err(), election.ErrInterrupted)
	_, ok := returned.Load(t1)
	require.True(t, ok, "b led before a's lead returned")
	require.Equal(t, "b", t2.ID())
	require.Greater(t, t2.Token(), t1.Token())
	t2.Interrupt()
	t3 := await(t, terms, 10*time.Second, "a's second term")
	require.Equal(t, "a", t3.ID())
	require.Greater(t, t3.Token(), t2.Token())
	cancel()
	require.ErrorIs(t, await(t, a, 10*time.Second, "a's Run"), context.Canceled)
	require.ErrorIs(t, await(t, b, 10*time.Second, "b's Run"), context.Canceled)
	require.ErrorIs(t, context.Cause(t3.Context()), context.Canceled)
	max, bad, _, _ := d.snapshot()
	require.Equal(t, 1, max)
	require.Zero(t, bad)
	require.Empty(t, elNodes(t, obs))
}

// TestRunRotating ports testRotatingLeadership: five participants whose
// lead returns after a moment lead in turn: every round of five terms
// has each of them once. Never two terms at once (in-process detector),
// tokens grow.
func TestRunRotating(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx, cancel := context.WithCancel(ctxT(t, 60*time.Second))
	defer cancel()
	const n, rounds = 5, 3
	ready := make(chan struct{})
	var d elTerms
	var count atomic.Int32
	lead := func(ctx context.Context, term *election.Term) error {
		d.enter(term.ID(), term.Token())
		defer d.leave()
		<-ready // the first term waits until all five are queued
		time.Sleep(10 * time.Millisecond)
		if count.Add(1) == n*rounds {
			cancel()
		}
		return nil
	}
	var runs []<-chan error
	for i := 0; i < n; i++ {
		runs = append(runs, elRun(ctx, connect(t, clientOpts{ns: ns}), fmt.Sprint("r", i), lead))
	}
	obs := connect(t, clientOpts{ns: ns})
	waitChildren(t, obs, elPath, n)
	close(ready)
	for i, r := range runs {
		require.ErrorIs(t, await(t, r, 30*time.Second, fmt.Sprint("Run ", i)), context.Canceled)
	}
	max, bad, ids, tokens := d.snapshot()
	t.Logf("terms: %v tokens %v", ids, tokens)
	require.Equal(t, 1, max, "two terms at once")
	require.Zero(t, bad, "a token did not grow")
	require.GreaterOrEqual(t, len(ids), n*rounds)
	for r := 0; r < rounds; r++ {
		round := slices.Clone(ids[r*n : (r+1)*n])
		slices.Sort(round)
		require.Equal(t, []string{"r0", "r1", "r2", "r3", "r4"}, round, "round %d", r)
	}
	require.Empty(t, elNodes(t, obs))
}

// TestRunParticipants: ten participants (ids 0-9) of one Run path, each its
// own session: every client sees the same Participants, one leader, the
// ids 0-9, and Leader agrees with the first.
func TestRunParticipants(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx, cancel := context.WithCancel(ctxT(t, 60*time.Second))
	defer cancel()
	leaders := make(chan string, 10)
	var clients []*client.Client
	var runs []<-chan error
	for i := 0; i < 10; i++ {
		c := connect(t, clientOpts{ns: ns})
		clients = append(clients, c)
		runs = append(runs, elRun(ctx, c, fmt.Sprint(i), func(ctx context.Context, term *election.Term) error {
			leaders <- term.ID()
			<-ctx.Done()
			return nil
		}))
	}
	waitChildren(t, clients[0], elPath, 10)
	who := await(t, leaders, 10*time.Second, "a leader")
	var first []election.Participant
	for i, c := range clients {
		ps, err := election.Participants(ctx, c, elPath)
		require.NoError(t, err)
		if i == 0 {
			first = ps
		}
		require.Equal(t, first, ps, "client %d sees another view", i)
		p, err := election.Leader(ctx, c, elPath)
		require.NoError(t, err)
		require.Equal(t, ps[0], p)
	}
	require.Equal(t, who, first[0].ID)
	var ids []string
	for i, p := range first {
		ids = append(ids, p.ID)
		require.Equal(t, i == 0, p.Leader)
	}
	slices.Sort(ids)
	require.Equal(t, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, ids)
	cancel()
	for _, r := range runs {
		require.ErrorIs(t, await(t, r, 10*time.Second, "Run"), context.Canceled)
	}
	pending(t, leaders, 0, "a second leader")
}
