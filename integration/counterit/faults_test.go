package counterit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// faultWorkers is the fault test's number of goroutines, each with a
// client (a session) of its own behind a fault link of its own.
const faultWorkers = 10

// faultIncrements is each worker's increments: COUNTER_FAULT_INCREMENTS,
// default 500, which keeps the package within its CI budget on 2 shared
// cores; the size is 1,000 (30 to 45 s there).
func faultIncrements(t *testing.T) int {
	s := os.Getenv("COUNTER_FAULT_INCREMENTS")
	if s == "" {
		return 500
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "COUNTER_FAULT_INCREMENTS")
	require.Positive(t, n, "COUNTER_FAULT_INCREMENTS")
	return n
}

// tally is what the workers' increments reported: the version each
// success made, the version each maybe would have made, and the definite
// failures (retried) by kind.
type tally struct {
	mu        sync.Mutex
	successes []int32
	maybes    []int32
	failures  map[string]int
	promoted  int
	done      atomic.Int64 // successes and maybes
}

func (ty *tally) note(r counter.Result, err error) (done bool) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	ty.promoted += r.Stats.PromotedTries
	var maybe *counter.MaybeAppliedError
	switch {
	case err == nil:
		ty.successes = append(ty.successes, r.Version)
	case errors.As(err, &maybe):
		ty.maybes = append(ty.maybes, maybe.Version+1)
	default:
		kind := "other"
		switch {
		case errors.Is(err, counter.ErrContention):
			kind = "contention"
		case errors.Is(err, context.DeadlineExceeded):
			kind = "deadline"
		case errors.Is(err, zkrecipes.ErrSessionLost), retry.IsSessionExpired(err):
			kind = "session"
		case retry.IsRetryable(err):
			kind = "connection"
		}
		if ty.failures == nil {
			ty.failures = map[string]int{}
		}
		ty.failures[kind]++
		return false
	}
	ty.done.Add(1)
	return true
}

// settle is the exact account of the counter after the increments: the
// node must hold its own version (it was made at 0, and every write added
// 1), every version is made by one write, so each success's version is its
// own, and every version no success made must be some maybe's. It returns
// how many maybes applied.
func (ty *tally) settle(t *testing.T, v int64, version int32) int {
	t.Helper()
	require.EqualValues(t, version, v, "the value is the number of writes")
	seen := make(map[int32]bool, len(ty.successes))
	for _, s := range ty.successes {
		require.False(t, seen[s], "two successes report version %d", s)
		require.True(t, s >= 1 && s <= version, "success at version %d of %d", s, version)
		seen[s] = true
	}
	var unexplained []int32
	applied := 0
	for k := int32(1); k <= version; k++ {
		switch {
		case seen[k]:
		case slices.Contains(ty.maybes, k):
			applied++
		default:
			unexplained = append(unexplained, k)
		}
	}
	require.Empty(t, unexplained, "versions made by no reported write")
	return applied
}

// TestIncrementsUnderFaults is the exactness test: 10 goroutines,
// each its own client and session behind its own fault link, increment one
// counter on a 3-server ensemble while links are cut (some longer than the
// session timeout), setData replies are dropped, and servers are killed
// and restarted (the one a worker is connected to, at a quarter and at
// two thirds of the run). Each worker does 500 increments
// (COUNTER_FAULT_INCREMENTS=1000 for the 10 x 1,000): it retries an
// increment that failed with a definite "not applied" error, and counts a
// *MaybeAppliedError as done, unknown. Then the clients close (nothing
// queued can apply later) and the count is settled exactly: every version
// of the node is made by one write, so each success claims its version,
// every other version must be some maybe's, and the value equals the
// successes plus the maybes that applied. The maybes that did not apply
// are done again, without faults, and the counter ends at exactly
// workers x increments.
func TestIncrementsUnderFaults(t *testing.T) {
	itest.NoLeaks(t)
	per := faultIncrements(t)
	total := faultWorkers * per
	cl := zktest.ForTest(t, zktest.WithServers(3))
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 10*time.Minute)
	policy, err := retry.ExponentialBackoff(5*time.Millisecond, 5, 200*time.Millisecond)
	require.NoError(t, err)
	opts := []counter.Option{counter.WithRetryPolicy(policy),
		counter.WithPromotedLock(counter.PromotedLock{Path: "/lock", RetryPolicy: policy, Timeout: 3 * time.Second})}

	admin := itest.Connect(t, cl, itest.Opts{NS: ns})
	ok, err := newCounter(t, admin, "/counter").Initialize(ctx, 0)
	require.NoError(t, err)
	require.True(t, ok)

	var ty tally
	links := make([]*faultlink.Link, faultWorkers)
	clients := make([]*client.Client, faultWorkers)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range faultWorkers {
		links[i] = itest.NewLink(t)
		clients[i] = itest.Connect(t, cl, itest.Opts{NS: ns, Link: links[i], Timeout: 2 * time.Second})
		dal := newCounter(t, clients[i], "/counter", opts...)
		wg.Go(func() {
			for done := 0; done < per && ctx.Err() == nil; {
				ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
				r, err := dal.Increment(ictx)
				cancel()
				if ty.note(r, err) {
					done++
				} else {
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
	faults := injectFaults(t, ctx, cl, links, func() float64 { return float64(ty.done.Load()) / float64(total) })
	wg.Wait()
	faults.stop()
	elapsed := time.Since(start)
	require.NoError(t, ctx.Err())

	// Nothing a worker sent may apply after the count: close the clients
	// (a request still queued in one is failed, not sent).
	for _, c := range clients {
		require.NoError(t, c.Close())
	}
	check := newCounter(t, admin, "/counter")
	v, version := value(t, ctx, check)
	applied := ty.settle(t, v, version)
	require.Equal(t, total, len(ty.successes)+len(ty.maybes))
	require.EqualValues(t, len(ty.successes)+applied, v, "successes plus the maybes that applied")
	t.Logf("%d workers x %d increments in %v under %s: %d succeeded, %d maybe (%d applied, %d not), definite failures retried %v, promoted tries %d; value %d",
		faultWorkers, per, elapsed.Round(time.Millisecond), faults.summary(), len(ty.successes), len(ty.maybes), applied,
		len(ty.maybes)-applied, ty.failures, ty.promoted, v)
	require.Positive(t, faults.kills.Load(), "no server was killed")

	// Do again what did not apply, without faults, and settle again.
	topUp := int(int64(total) - v)
	for v < int64(total) {
		c := itest.Connect(t, cl, itest.Opts{NS: ns})
		dal := newCounter(t, c, "/counter", opts...)
		for range int64(total) - v {
			for {
				r, err := dal.Increment(ctx)
				if ty.note(r, err) {
					break
				}
				require.NoError(t, ctx.Err())
			}
		}
		require.NoError(t, c.Close())
		v, version = value(t, ctx, check)
		applied = ty.settle(t, v, version)
	}
	require.EqualValues(t, total, v, "exactly workers x increments")
	require.EqualValues(t, len(ty.successes)+applied, v)
	t.Logf("after %d more increments without faults: value %d = %d successes + %d maybes applied", topUp, v, len(ty.successes), applied)
}

// faultRun is the fault injector of TestIncrementsUnderFaults.
type faultRun struct {
	quit, done chan struct{}
	links      []*faultlink.Link
	mu         sync.Mutex
	counts     map[string]int
	kills      atomic.Int64
}

// injectFaults applies faults until stop: every 100 to 600 ms a link that
// is not cut already is cut (for 0.1 to 3 s, past the 2 s session timeout
// at times) or has the reply to its next setData dropped; when progress
// passes 1/4 and 2/3, the server some worker is connected to is killed,
// and started again 1 to 2 s later.
func injectFaults(t *testing.T, ctx context.Context, cl *zktest.Cluster, links []*faultlink.Link, progress func() float64) *faultRun {
	f := &faultRun{quit: make(chan struct{}), done: make(chan struct{}), counts: map[string]int{}, links: links}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 18))
	wait := func(d time.Duration) bool {
		select {
		case <-time.After(d):
			return true
		case <-f.quit:
			return false
		case <-ctx.Done():
			return false
		}
	}
	var cuts sync.WaitGroup
	cut := make([]atomic.Bool, len(links))
	go func() {
		defer close(f.done)
		defer cuts.Wait()
		kills := []float64{0.25, 0.66}
		for {
			if !wait(time.Duration(100+rng.IntN(500)) * time.Millisecond) {
				return
			}
			if len(kills) > 0 && progress() >= kills[0] {
				kills = kills[1:]
				f.kill(t, ctx, cl, links, rng, wait)
				continue
			}
			k := rng.IntN(len(links))
			l := links[k]
			if rng.IntN(3) == 0 {
				l.DropReplyTo(faultlink.OpSetData)
				f.note("drop-set armed")
				continue
			}
			if !cut[k].CompareAndSwap(false, true) {
				continue
			}
			d := time.Duration(100+rng.IntN(2900)) * time.Millisecond
			l.Cut()
			f.note(fmt.Sprintf("cut%s", map[bool]string{true: ">T", false: "<T"}[d > 2*time.Second]))
			cuts.Go(func() {
				wait(d)
				l.Restore()
				cut[k].Store(false)
			})
		}
	}()
	return f
}

// kill kills the server a random worker is connected to and starts it
// again 1 to 2 s later.
func (f *faultRun) kill(t *testing.T, ctx context.Context, cl *zktest.Cluster, links []*faultlink.Link, rng *rand.Rand, wait func(time.Duration) bool) {
	i := rng.IntN(cl.Size())
	remote := links[rng.IntN(len(links))].Remote()
	for j := range cl.Size() {
		if cl.Addr(j) == remote {
			i = j
		}
	}
	if err := cl.KillServer(ctx, i); err != nil {
		t.Errorf("kill server %d: %v", i, err)
		return
	}
	f.kills.Add(1)
	f.note("kill")
	wait(time.Duration(1000+rng.IntN(1000)) * time.Millisecond)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := cl.StartServer(sctx, i); err != nil {
		t.Errorf("start server %d again: %v", i, err)
	}
}

func (f *faultRun) note(kind string) {
	f.mu.Lock()
	f.counts[kind]++
	f.mu.Unlock()
}

// stop ends the faults (the one under way is undone first) and disarms
// the drops that did not fire.
func (f *faultRun) stop() {
	close(f.quit)
	<-f.done
	for _, l := range f.links {
		l.Disarm()
	}
}

func (f *faultRun) summary() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("faults %v", f.counts)
}
