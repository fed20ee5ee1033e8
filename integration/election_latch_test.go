package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// TestLatchBasic ports Curator's TestLeaderLatch.testBasic: five latches,
// each its own session, started one after another. Leadership passes in
// start order as each leader closes; exactly one leads at a time; Leader
// and Participants agree with it; tokens grow; nothing is left behind and
// Leader then reports ErrNoLeader.
func TestLatchBasic(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	var ls []*election.Latch
	for i := 0; i < 5; i++ {
		ls = append(ls, elLatch(t, connect(t, clientOpts{ns: ns}), fmt.Sprint("p", i)))
	}
	var last int64
	for i, l := range ls {
		term := elAwait(t, l, 10*time.Second)
		require.Equal(t, []string{l.ID()}, elLeading(ls), "leaders after %d closes", i)
		require.Greater(t, term.Token(), last)
		last = term.Token()
		require.Equal(t, l.Node(), term.Node())
		p, err := election.Leader(ctx, obs, elPath)
		require.NoError(t, err)
		require.Equal(t, l.ID(), p.ID)
		require.Equal(t, term.Node(), p.Node)
		require.Equal(t, term.Token(), p.Token)
		ps, err := election.Participants(ctx, obs, elPath)
		require.NoError(t, err)
		require.Len(t, ps, len(ls)-i)
		require.Equal(t, p, ps[0])
		for j, q := range ps {
			require.Equal(t, fmt.Sprint("p", i+j), q.ID)
			require.Equal(t, j == 0, q.Leader)
		}
		require.NoError(t, l.Close(ctx))
		require.ErrorIs(t, term.Err(), zkrecipes.ErrClosed)
		require.False(t, l.Leading())
		require.NoError(t, l.Close(ctx), "a second Close is a no-op")
		_, err = l.Await(ctx)
		require.ErrorIs(t, err, zkrecipes.ErrClosed)
		require.ErrorIs(t, l.Start(ctx), zkrecipes.ErrClosed)
	}
	require.Empty(t, elNodes(t, obs))
	_, err := election.Leader(ctx, obs, elPath)
	require.ErrorIs(t, err, election.ErrNoLeader)
}

// TestLatchWaiting ports testWaiting: ten goroutines, each with its own
// client, Await the latch, lead a moment, and close. Never two leaders at
// once (an in-process counter), tokens strictly grow from term to term,
// every one leads once.
func TestLatchWaiting(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	const n = 10
	var d elTerms
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		c := connect(t, clientOpts{ns: ns})
		l, err := election.NewLatch(c, elPath, election.WithID(fmt.Sprint("w", i)))
		require.NoError(t, err)
		t.Cleanup(func() { elClose(l) })
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Start(ctx); err != nil {
				errs <- err
				return
			}
			term, err := l.Await(ctx)
			if err != nil {
				errs <- err
				return
			}
			d.enter(l.ID(), term.Token())
			time.Sleep(20 * time.Millisecond)
			if term.Err() != nil {
				errs <- fmt.Errorf("%s: term ended while leading: %w", l.ID(), term.Err())
			}
			d.leave()
			if err := l.Close(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	max, bad, ids, tokens := d.snapshot()
	t.Logf("terms in order: %v tokens %v", ids, tokens)
	require.Equal(t, 1, max, "two leaders at once")
	require.Zero(t, bad, "a token did not grow")
	require.Len(t, ids, n)
	require.Empty(t, elNodes(t, connect(t, clientOpts{ns: ns})))
}

// TestLatchCorrectWatching ports testCorrectWatching: with three latches
// A (leader), B and C, closing B wakes C (it watched B) but C must not lead
// while A does; closing A then makes C lead.
func TestLatchCorrectWatching(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	a := elLatch(t, connect(t, clientOpts{ns: ns}), "a")
	b := elLatch(t, connect(t, clientOpts{ns: ns}), "b")
	cc := elLatch(t, connect(t, clientOpts{ns: ns}), "c")
	elAwait(t, a, 10*time.Second)
	require.NoError(t, b.Close(ctx))
	elNoLeaderFor(t, 500*time.Millisecond, b, cc)
	require.True(t, a.Leading())
	res := elAwaitAsync(ctx, cc)
	pending(t, res, 0, "C's Await")
	require.NoError(t, a.Close(ctx))
	r := await(t, res, 10*time.Second, "C's Await after A closed")
	require.NoError(t, r.err)
	require.Equal(t, []string{"c"}, elLeading([]*election.Latch{a, b, cc}))
}

// TestLatchRelativePath ports testRelativePath: a relative path is
// rejected with a typed error, before any I/O.
func TestLatchRelativePath(t *testing.T) {
	c := connect(t, clientOpts{ns: namespace(t)})
	_, err := election.NewLatch(c, "parent/child")
	require.ErrorIs(t, err, zkrecipes.ErrInvalidPath)
	err = election.Run(ctxT(t, 5*time.Second), c, "parent", func(context.Context, *election.Term) error { return nil })
	require.ErrorIs(t, err, zkrecipes.ErrInvalidPath)
}

// TestLatchNodeDeleted: deleting the leader's node under it ends its term
// (ErrLost) and the latch queues again with a new node, whose term has a
// greater token.
func TestLatchNodeDeleted(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	l := elLatch(t, connect(t, clientOpts{ns: ns}), "x")
	term := elAwait(t, l, 10*time.Second)
	require.NoError(t, obs.Delete(ctx, term.Node(), -1))
	require.True(t, waitClosed(term.Done(), 10*time.Second), "the term outlived its node")
	require.ErrorIs(t, term.Err(), zkrecipes.ErrLost)
	next := elAwait(t, l, 10*time.Second)
	require.NotEqual(t, term.Node(), next.Node())
	require.Greater(t, next.Token(), term.Token())
	require.Equal(t, []string{elBase(next.Node())}, elNodes(t, obs))
}

// TestLatchTermsChannel: Terms delivers each new term and is closed by
// Close.
func TestLatchTermsChannel(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	l := elLatch(t, connect(t, clientOpts{ns: ns}), "x")
	term := await(t, l.Terms(), 10*time.Second, "the first term")
	require.Equal(t, l.Term(), term)
	term.Interrupt()
	next := await(t, l.Terms(), 10*time.Second, "the term after Interrupt")
	require.ErrorIs(t, term.Err(), election.ErrInterrupted)
	require.Greater(t, next.Token(), term.Token(), "Interrupt requeues with a new node")
	require.NoError(t, l.Close(ctx))
	_, ok := <-l.Terms()
	require.False(t, ok, "Terms is closed by Close")
}
