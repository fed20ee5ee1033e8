package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// hookRecord is one call of a recording hook, as a line, with the duration
// it carried.
type hookRecord struct {
	line string
	d    time.Duration
}

// hookRecorder records every hook call of a client, in order.
type hookRecorder struct {
	mu    sync.Mutex
	got   []hookRecord
	open  map[time.Time]int // the Since of each holding begun and not yet ended
	wrong []string          // a Released without its Held, a Held twice
}

func (r *hookRecorder) add(line string, d time.Duration) {
	r.mu.Lock()
	r.got = append(r.got, hookRecord{line, d})
	r.mu.Unlock()
}

func (r *hookRecorder) hooks() *client.Hooks {
	return &client.Hooks{
		State: func(s client.StateHook) { r.add("state "+s.State.String(), s.InPrevious) },
		Acquire: func(ctx context.Context, a client.Acquisition) (context.Context, func(client.AcquireOutcome)) {
			r.add("acquire "+a.Recipe+" "+a.Path, 0)
			return ctx, func(o client.AcquireOutcome) {
				r.add(fmt.Sprintf("acquired %s err=%v cancelled=%v", a.Recipe, o.Err != nil, o.Cancelled), o.Wait)
			}
		},
		Held: func(h client.Holding) {
			r.mu.Lock()
			if r.open == nil {
				r.open = map[time.Time]int{}
			}
			if r.open[h.Since]++; r.open[h.Since] > 1 {
				r.wrong = append(r.wrong, fmt.Sprintf("held twice: %+v", h))
			}
			r.mu.Unlock()
			r.add("held "+h.Recipe+" "+h.Path, 0)
		},
		Released: func(rel client.Release) {
			r.mu.Lock()
			if r.open[rel.Since] == 0 {
				r.wrong = append(r.wrong, fmt.Sprintf("released, never held: %+v", rel))
			} else if r.open[rel.Since]--; r.open[rel.Since] == 0 {
				delete(r.open, rel.Since)
			}
			r.mu.Unlock()
			r.add(fmt.Sprintf("released %s %s lost=%v", rel.Recipe, rel.Path, rel.Lost), rel.Held)
		},
	}
}

// unpaired fails unless every holding begun has ended, each once, with
// the Since it began with.
func (r *hookRecorder) unpaired(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Empty(t, r.wrong, "holdings reported out of pairs")
	require.Empty(t, r.open, "holdings begun that never ended")
}

// lines are the records so far, without their durations.
func (r *hookRecorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.got))
	for i, g := range r.got {
		out[i] = g.line
	}
	return out
}

// duration is the duration of the first record whose line is line.
func (r *hookRecorder) duration(t *testing.T, line string) time.Duration {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.got {
		if g.line == line {
			return g.d
		}
	}
	require.FailNow(t, "no such record", "%q in %v", line, r.got)
	return 0
}

// TestHooksScriptedRun: a recording hook sees each event of a scripted run
// in order (a lock acquired, held, lost under a cut, the connection back, a
// second holding released, a wait given up) with plausible durations.
func TestHooksScriptedRun(t *testing.T) {
	noLeaks(t)
	rec := &hookRecorder{}
	link := newLink(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns, link: link, timeout: 3 * time.Second, extra: []client.Option{client.WithHooks(rec.hooks())}})
	other := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 60*time.Second)

	m, err := mutex.New(c, "/jobs/lock")
	require.NoError(t, err)
	require.NoError(t, m.Lock(ctx))
	time.Sleep(100 * time.Millisecond) // hold a little
	sess := c.Session()
	link.Cut()
	require.True(t, waitClosed(m.Lost(), 10*time.Second), "the holding is lost under the cut")
	link.Restore()
	eventually(t, 10*time.Second, "the connection back", func() bool { return c.State() == client.StateReconnected })
	require.Equal(t, sess, c.Session(), "the same session")
	_ = m.Unlock(ctx) // the lost holding's node goes

	require.NoError(t, m.Lock(ctx))
	require.NoError(t, m.Unlock(ctx))

	// A wait given up: another process holds, our Lock's ctx ends.
	blocker, err := mutex.New(other, "/jobs/lock")
	require.NoError(t, err)
	require.NoError(t, blocker.Lock(ctx))
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	require.ErrorIs(t, m.Lock(short), context.DeadlineExceeded)
	cancel()
	require.NoError(t, blocker.Unlock(ctx))

	want := []string{
		"state Connected",
		"acquire mutex /jobs/lock",
		"held mutex /jobs/lock",
		"acquired mutex err=false cancelled=false",
		"state Suspended",
		"released mutex /jobs/lock lost=true",
		"state Reconnected",
		"acquire mutex /jobs/lock",
		"held mutex /jobs/lock",
		"acquired mutex err=false cancelled=false",
		"released mutex /jobs/lock lost=false",
		"acquire mutex /jobs/lock",
		"acquired mutex err=true cancelled=true",
	}
	eventually(t, 5*time.Second, "every record", func() bool { return len(rec.lines()) >= len(want) })
	require.Equal(t, want, rec.lines())
	rec.unpaired(t)

	held := rec.duration(t, "released mutex /jobs/lock lost=true")
	require.GreaterOrEqual(t, held, 100*time.Millisecond, "held at least as long as the test held before the cut")
	require.Less(t, held, time.Minute)
	require.Greater(t, rec.duration(t, "state Reconnected"), time.Duration(0), "time spent Suspended")
	require.Greater(t, rec.duration(t, "acquired mutex err=false cancelled=false"), time.Duration(0))
	gaveUp := rec.duration(t, "acquired mutex err=true cancelled=true")
	require.GreaterOrEqual(t, gaveUp, 300*time.Millisecond, "the given-up wait lasted its ctx")
}

// TestHooksEveryRecipe: the semaphore, the semaphore mutex, the latch and
// Run report their waits and holdings under their own names, and the
// semaphore's inner locks mutex reports nothing.
func TestHooksEveryRecipe(t *testing.T) {
	noLeaks(t)
	rec := &hookRecorder{}
	c := connect(t, clientOpts{ns: namespace(t), extra: []client.Option{client.WithHooks(rec.hooks())}})
	ctx := ctxT(t, 60*time.Second)

	sem, err := semaphore.New(c, "/sem", 2)
	require.NoError(t, err)
	leases, err := sem.AcquireN(ctx, 2) // Curator's way: through the locks mutex
	require.NoError(t, err)
	for _, l := range leases {
		require.NoError(t, l.Release(ctx))
	}
	sm, err := semaphore.NewMutex(c, "/semmutex")
	require.NoError(t, err)
	require.NoError(t, sm.Lock(ctx))
	require.NoError(t, sm.Unlock(ctx))

	l, err := election.NewLatch(c, "/latch")
	require.NoError(t, err)
	require.NoError(t, l.Start(ctx))
	_, err = l.Await(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Close(ctx))

	terms := 0
	err = election.Run(ctx, c, "/run", func(ctx context.Context, t *election.Term) error {
		terms++
		return nil
	}, election.WithRunOnce())
	require.NoError(t, err)
	require.Equal(t, 1, terms)

	rw, err := rwlock.New(c, "/rw")
	require.NoError(t, err)
	require.NoError(t, rw.WriteLock().Lock(ctx))
	require.NoError(t, rw.WriteLock().Unlock(ctx))
	require.NoError(t, rw.ReadLock().Lock(ctx))
	require.NoError(t, rw.ReadLock().Unlock(ctx))

	want := []string{
		"acquire semaphore /sem", "held semaphore /sem", "held semaphore /sem", "acquired semaphore err=false cancelled=false",
		"released semaphore /sem lost=false", "released semaphore /sem lost=false",
		"acquire semaphore-mutex /semmutex", "held semaphore-mutex /semmutex", "acquired semaphore-mutex err=false cancelled=false",
		"released semaphore-mutex /semmutex lost=false",
		"acquire latch /latch", "held latch /latch", "acquired latch err=false cancelled=false",
		"released latch /latch lost=false",
		"acquire leader /run", "held leader /run", "acquired leader err=false cancelled=false",
		"released leader /run lost=false",
		"acquire rwlock-write /rw", "held rwlock-write /rw", "acquired rwlock-write err=false cancelled=false",
		"released rwlock-write /rw lost=false",
		"acquire rwlock-read /rw", "held rwlock-read /rw", "acquired rwlock-read err=false cancelled=false",
		"released rwlock-read /rw lost=false",
	}
	eventually(t, 5*time.Second, "every record", func() bool { return len(rec.lines()) >= len(want)+1 })
	got := rec.lines()
	require.Equal(t, "state Connected", got[0])
	require.Equal(t, want, got[1:], "no record of the semaphore's locks mutex")
	rec.unpaired(t)
}

// TestHooksHoldingsPair: the holdings whose begin no acquire outcome
// marks, or marks for several, are reported in pairs all the same: an
// AcquireN of three leases is three holdings; a second reader on one read
// handle joins its holding (none begun); a Downgrade begins a read holding
// with no acquire of its own. Each ends once, with the Since it began with.
func TestHooksHoldingsPair(t *testing.T) {
	noLeaks(t)
	rec := &hookRecorder{}
	c := connect(t, clientOpts{ns: namespace(t), extra: []client.Option{client.WithHooks(rec.hooks())}})
	ctx := ctxT(t, 60*time.Second)

	sem, err := semaphore.New(c, "/sem", 3)
	require.NoError(t, err)
	leases, err := sem.AcquireN(ctx, 3)
	require.NoError(t, err)
	for _, l := range leases {
		require.NoError(t, l.Release(ctx))
	}

	rw, err := rwlock.New(c, "/rw")
	require.NoError(t, err)
	require.NoError(t, rw.RLock(ctx))
	require.NoError(t, rw.RLock(ctx)) // joins the handle's read holding
	require.NoError(t, rw.RUnlock(ctx))
	require.NoError(t, rw.RUnlock(ctx))

	require.NoError(t, rw.Lock(ctx))
	require.NoError(t, rw.Downgrade(ctx))
	require.NoError(t, rw.RUnlock(ctx))

	want := []string{
		"acquire semaphore /sem", "held semaphore /sem", "held semaphore /sem", "held semaphore /sem",
		"acquired semaphore err=false cancelled=false",
		"released semaphore /sem lost=false", "released semaphore /sem lost=false", "released semaphore /sem lost=false",
		"acquire rwlock-read /rw", "held rwlock-read /rw", "acquired rwlock-read err=false cancelled=false",
		"acquire rwlock-read /rw", "acquired rwlock-read err=false cancelled=false",
		"released rwlock-read /rw lost=false",
		"acquire rwlock-write /rw", "held rwlock-write /rw", "acquired rwlock-write err=false cancelled=false",
		"held rwlock-read /rw", "released rwlock-write /rw lost=false",
		"released rwlock-read /rw lost=false",
	}
	eventually(t, 5*time.Second, "every record", func() bool { return len(rec.lines()) >= len(want)+1 })
	got := rec.lines()
	require.Equal(t, "state Connected", got[0])
	require.Equal(t, want, got[1:])
	rec.unpaired(t)
}

// TestHooksRequests: the client reports each request it sends under its
// op's name with the outcome's label, the retries of an operation as
// requests of their own, and neither the session's own requests (its
// close) nor operations that never reached a connection.
func TestHooksRequests(t *testing.T) {
	noLeaks(t)
	var mu sync.Mutex
	var got []string
	hooks := &client.Hooks{Request: func(r client.RequestHook) {
		if r.Duration <= 0 {
			t.Errorf("request %+v: no time", r)
		}
		mu.Lock()
		got = append(got, r.Op+" "+r.Label())
		mu.Unlock()
	}}
	c := connect(t, clientOpts{ns: namespace(t), extra: []client.Option{client.WithHooks(hooks)}})
	ctx := ctxT(t, 60*time.Second)
	take := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
	// The first create finds no namespace (no_node), makes it, then creates.
	_, err := c.Create(ctx, "/first", nil, 0)
	require.NoError(t, err)
	require.Equal(t, "create no_node", take()[0])

	_, err = c.Create(ctx, "/r", nil, 0)
	require.NoError(t, err)
	_, err = c.Create(ctx, "/r", nil, 0)
	require.ErrorIs(t, err, zk.ErrNodeExists)
	_, _, err = c.Get(ctx, "/r")
	require.NoError(t, err)
	ok, _, err := c.Exists(ctx, "/r/missing")
	require.NoError(t, err)
	require.False(t, ok)
	_, err = c.Set(ctx, "/r", nil, 5)
	require.ErrorIs(t, err, zk.ErrBadVersion)
	_, _, err = c.Children(ctx, "/r")
	require.NoError(t, err)
	_, err = c.Multi(ctx, &zk.CreateRequest{Path: "/r/m"}, &zk.DeleteRequest{Path: "/r/m", Version: -1})
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, "/r", -1))
	require.ErrorIs(t, c.Delete(ctx, "/r", -1), zk.ErrNoNode)
	require.Equal(t, []string{
		"create ok", "create node_exists", "getData ok", "exists no_node", "setData bad_version",
		"getChildren ok", "multi ok", "delete ok", "delete no_node",
	}, take())

	require.NoError(t, c.Close())
	_, _, err = c.Get(ctx, "/")
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
	require.Empty(t, take(), "the close and a call after it")
}
