package multilockit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestListOrderDeadlocks is the control of TestReversedListsFinish: two
// processes each take the mutexes of the same two paths in the order of
// their own list, as Curator's InterProcessMultiLock does, and their lists
// are reversed. Once each holds its first lock, each waits for the other's
// forever: both time out. This is the deadlock a Multi cannot have.
func TestListOrderDeadlocks(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 30*time.Second)
	lists := [2][]string{{"/accounts/a", "/accounts/b"}, {"/accounts/b", "/accounts/a"}}
	var firsts, timeouts sync.WaitGroup
	firsts.Add(2)
	timeouts.Add(2)
	results := make([]error, 2)
	for i, list := range lists {
		c := itest.Connect(t, shared, itest.Opts{NS: ns})
		go func() {
			defer timeouts.Done()
			first, _ := mutex.New(c, list[0])
			second, _ := mutex.New(c, list[1])
			err := first.Lock(ctx)
			firsts.Done()
			if err != nil {
				results[i] = err
				return
			}
			defer func() { _ = first.Unlock(context.Background()) }()
			firsts.Wait() // both hold their first lock
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			results[i] = second.Lock(wctx)
			if results[i] == nil {
				_ = second.Unlock(ctx)
			}
		}()
	}
	timeouts.Wait()
	for i, err := range results {
		require.ErrorIs(t, err, context.DeadlineExceeded, "process %d in list order: deadlocked, so its second lock timed out", i)
	}
}

// runReversed has procs processes (each its own session) take multi-locks
// over the same paths, each listing them in its own order (process i
// rotates and reverses the list), rounds times each, holding for a moment.
// It fails the test when any two hold a path at once, or when they do not
// all finish within limit: a deadlock.
func runReversed(t *testing.T, cl *zktest.Cluster, ns string, paths []string, procs, rounds int, limit time.Duration) {
	t.Helper()
	ctx := itest.Ctx(t, limit)
	s := newInside()
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for i := range procs {
		list := make([]string, len(paths))
		for j := range paths {
			list[j] = paths[(i+j)%len(paths)]
		}
		if i%2 == 1 {
			for a, b := 0, len(list)-1; a < b; a, b = a+1, b-1 {
				list[a], list[b] = list[b], list[a]
			}
		}
		c := itest.Connect(t, cl, itest.Opts{NS: ns})
		m := newMulti(t, c, list...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if err := m.Lock(ctx); err != nil {
					errs <- fmt.Errorf("process %d (list %v), round %d: %w", i, list, r, err)
					return
				}
				s.enter(paths)
				time.Sleep(time.Duration(r%3) * time.Millisecond)
				s.leave(paths)
				if err := m.Unlock(ctx); err != nil {
					errs <- fmt.Errorf("process %d, round %d: unlock: %w", i, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "a deadlock shows as a Lock that never returned before the limit")
	}
	entries, violations := s.counts()
	require.Equal(t, procs*rounds, entries)
	require.Zero(t, violations, "two holders of one path at once")
}

// TestReversedListsFinish: the scenario of TestListOrderDeadlocks with
// Multis: two processes with reversed lists, then four processes with
// rotated and reversed lists of three paths, 25 rounds each: every round
// of every process finishes (the Multis take the paths in one order), and
// no path ever has two holders.
func TestReversedListsFinish(t *testing.T) {
	itest.NoLeaks(t)
	runReversed(t, shared, itest.Namespace(t), []string{"/accounts/a", "/accounts/b"}, 2, 25, time.Minute)
	runReversed(t, shared, itest.Namespace(t), []string{"/x/1", "/x/2", "/x/3"}, 4, 25, time.Minute)
}

// TestEnsemble: the reversed-lists scenario on a 3-server ensemble, the
// processes spread over its servers, then one multi-lock whose holder's
// server is killed: its Lost closes or it keeps its set (its session
// moves to another server), and another process gets the set once it is
// released either way.
func TestEnsemble(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t, zktest.WithServers(3))
	ns := itest.Namespace(t)
	runReversed(t, cl, ns, []string{"/e/a", "/e/b", "/e/c"}, 3, 20, 2*time.Minute)

	ctx := itest.Ctx(t, time.Minute)
	holderC := connectTo(t, cl, ns, 0)
	holder := newMulti(t, holderC, "/e/a", "/e/b")
	other := newMulti(t, connectTo(t, cl, ns, 1), "/e/b", "/e/a")
	require.NoError(t, holder.Lock(ctx))
	require.ErrorIs(t, other.TryLock(ctx), zkrecipes.ErrLocked)
	require.NoError(t, cl.KillServer(ctx, 0))
	t.Cleanup(func() { _ = cl.StartServer(context.Background(), 0) })
	err := holder.Unlock(ctx) // nil, or ErrLost if the kill suspended it first
	if err != nil {
		require.ErrorIs(t, err, zkrecipes.ErrLost)
	}
	require.NoError(t, other.Lock(ctx))
	require.NoError(t, other.Unlock(ctx))
}

// connectTo connects to server i of cl first (the client tries the others
// after it).
func connectTo(t *testing.T, cl *zktest.Cluster, ns string, i int) *client.Client {
	addrs := cl.Addrs()
	order := append(addrs[i:i+1:i+1], append(addrs[:i:i], addrs[i+1:]...)...)
	return itest.Connect(t, cl, itest.Opts{NS: ns, Extra: []client.Option{client.WithServers(order...)}})
}

// TestSemaphoreMutexInASet: a Multi of a semaphore mutex (Curator's
// InterProcessSemaphoreMutex) and a mutex, as NewMultiOf takes them:
// while it holds, a plain semaphore mutex on that path cannot, and a
// plain mutex on the other cannot; the tokens are the lease's and the lock
// node's; after Unlock both are free and nothing is left behind.
func TestSemaphoreMutexInASet(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	other := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 30*time.Second)
	sm, err := semaphore.NewMutex(c, "/res/licence")
	require.NoError(t, err)
	mx, err := mutex.New(c, "/res/row")
	require.NoError(t, err)
	m, err := mutex.NewMultiOf(mx, sm)
	require.NoError(t, err)
	require.Equal(t, []string{"/res/licence", "/res/row"}, m.Paths())
	require.NoError(t, m.Lock(ctx))
	tokens, err := m.Tokens(ctx)
	require.NoError(t, err)
	require.Len(t, tokens, 2)
	smTok, err := sm.Token(ctx)
	require.NoError(t, err)
	require.Equal(t, smTok, tokens["/res/licence"])

	osm, _ := semaphore.NewMutex(other, "/res/licence")
	omx, _ := mutex.New(other, "/res/row")
	require.ErrorIs(t, osm.TryLock(ctx), zkrecipes.ErrLocked)
	require.ErrorIs(t, omx.TryLock(ctx), zkrecipes.ErrLocked)
	require.NoError(t, m.Unlock(ctx))
	require.NoError(t, osm.TryLock(ctx))
	require.NoError(t, omx.TryLock(ctx))
	require.NoError(t, osm.Unlock(ctx))
	require.NoError(t, omx.Unlock(ctx))
	require.Empty(t, children(t, ctx, c, "/res/row"))
	require.Empty(t, children(t, ctx, c, "/res/licence/leases"))
}

// TestBadInputLeavesNothing: an empty set, a path twice, a nil lock or a
// bad path fail with a typed error and make nothing on the server.
func TestBadInputLeavesNothing(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	raw := itest.Connect(t, shared, itest.Opts{})
	ctx := itest.Ctx(t, 30*time.Second)
	_, err := mutex.NewMulti(c, nil)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = mutex.NewMulti(c, []string{"/bad/a", "/bad/b", "/bad/a"})
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	require.ErrorContains(t, err, "/bad/a")
	a, _ := mutex.New(c, "/bad/a")
	_, err = mutex.NewMultiOf(a, nil)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = mutex.NewMulti(c, []string{"/bad/a", "/bad//b"})
	require.ErrorIs(t, err, zkrecipes.ErrInvalidPath)
	ok, _, err := raw.Exists(ctx, ns)
	require.NoError(t, err)
	require.False(t, ok, "nothing was made on the server")
}
