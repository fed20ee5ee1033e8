package cacheit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/chaos"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// envInt is the integer in the environment variable name, or def.
func envInt(t *testing.T, name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err, name)
	return v
}

// TestCacheFaults checks the cache's correctness under faults: a writer
// on a client of its own creates, writes, deletes and re-creates nodes on
// three levels under /f (and now and then /f itself, and ephemeral leaves)
// while the cache's own link is cut, blackholed, made to lose replies,
// and cut for longer than the session timeout (the session expires and
// the cache rebuilds). Then a calm phase: the cache's view must equal the
// server's tree (read with a fresh client, data and zxids), the events
// replayed on an empty map must give that tree too, and every event must
// fit the ones before it (no Created of a node already there, no Changed
// or Deleted of one missing, parents before children, one Initialized).
//
// CACHE_SEED sets the first run's seed (printed), CACHE_RUNS the number of
// runs (default 2, seed, seed+1, ...), CACHE_FAULT_SECONDS each run's
// fault phase (default 5). The faults and the writer's choices follow the
// seed; their timing against the cache's reads does not.
func TestCacheFaults(t *testing.T) {
	seed := envInt(t, "CACHE_SEED", uint64(time.Now().UnixNano()))
	runs := envInt(t, "CACHE_RUNS", 2)
	secs := envInt(t, "CACHE_FAULT_SECONDS", 5)
	for i := range runs {
		s := seed + i
		t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) {
			t.Logf("CACHE_SEED=%d (rerun one run: CACHE_SEED=%d CACHE_RUNS=1)", s, s)
			faultRun(t, s, time.Duration(secs)*time.Second)
		})
	}
}

// faultRun is one run of TestCacheFaults.
func faultRun(t *testing.T, seed uint64, faultFor time.Duration) {
	r := newRig(t, nil)
	link := itest.NewLink(t)
	const session = 1500 * time.Millisecond
	cc := itest.Connect(t, shared, itest.Opts{NS: r.ns, Link: link, Timeout: session})
	st := watchStates(t, cc)
	w := &chaos.TreeWriter{C: r.c, Root: "/f", Rand: rand.New(rand.NewPCG(seed, 1)), Tag: "w",
		Width: 3, Depth: 3, Ephemeral: true, Churn: true}
	for range 30 { // something to load
		require.NoError(t, w.Step(r.ctx))
	}
	ch, rec := startCache(t, cc, "/f")

	// The writer writes all through the fault phase.
	wctx, stopWriter := context.WithCancel(r.ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pace := rand.New(rand.NewPCG(seed, 2))
		for w.Step(wctx) == nil {
			sleepCtx(wctx, time.Duration(pace.IntN(15))*time.Millisecond)
		}
	}()
	faults := injectFaults(t, link, st, rand.New(rand.NewPCG(seed, 3)), session, faultFor)
	stopWriter()
	wg.Wait()
	link.Restore()

	// Calm: read the server with a fresh client.
	fresh := itest.Connect(t, shared, itest.Opts{NS: r.ns})
	tree := converge(t, ch, rec, fresh, "/f", 30*time.Second)
	require.Equal(t, 1, countType(rec, "INITIALIZED"))
	t.Logf("seed=%d writer=%v faults=%v events=%d nodes=%d cache-reads=%d", seed, w.Counts(), faults,
		rec.count(), len(tree), reads(link))
	require.Zero(t, writes(link), "the cache wrote to the server")
}

// injectFaults applies faults to the cache's link until d is over: cuts and
// blackholes shorter than the session timeout, lost replies to the cache's
// reads, and cuts that outlast the session (waiting until the client gives
// the session up). It returns how many of each it applied.
func injectFaults(t *testing.T, link *faultlink.Link, st *states, rng *rand.Rand, session, d time.Duration) map[string]int {
	t.Helper()
	counts := map[string]int{}
	short := func() time.Duration { return session/8 + time.Duration(rng.Int64N(int64(session/2))) }
	for end := time.Now().Add(d); time.Now().Before(end); {
		switch x := rng.IntN(100); {
		case x < 30:
			counts["cut"]++
			link.Cut()
			time.Sleep(short())
			link.Restore()
		case x < 55:
			counts["hole"]++
			link.Blackhole()
			time.Sleep(short())
			link.Restore()
		case x < 80:
			counts["drop"]++
			ops := [][]int32{{faultlink.OpGetData}, {faultlink.OpGetChildren2}, {faultlink.OpExists}, nil}
			fired := link.DropReplyTo(ops[rng.IntN(len(ops))]...)
			select {
			case <-fired:
			case <-time.After(session):
			}
			link.Disarm()
		default:
			counts["expire"]++
			expire(t, link, st, nil)
		}
		time.Sleep(session/8 + time.Duration(rng.Int64N(int64(session/2)))) // connected, mostly
	}
	return counts
}

// sleepCtx sleeps d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// countType counts the recorded events whose rendering starts with typ.
func countType(rec *recorder, typ string) int {
	return len(slices.DeleteFunc(rec.all(), func(s string) bool { return !strings.HasPrefix(s, typ) }))
}
