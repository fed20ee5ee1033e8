package abandonit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// Deadlines of the polls: generous, since they only bound a failure.
const (
	readyWithin  = 60 * time.Second // every waiter waiting with its watch
	returnWithin = 60 * time.Second // every wait returned once cancelled
	settleWithin = 60 * time.Second // watches, goroutines and nodes back
)

// parallel is how many setup calls run at once.
const parallel = 32

// root is the parent of every recipe path: a persistent node made before
// the setup, so that nothing the test counts is a container the server
// may reap meanwhile.
const root = "/r"

var (
	totalWatches = regexp.MustCompile(`Total watches:\s*(\d+)`)
	watchCount   = regexp.MustCompile(`(?m)^zk_watch_count\s+(\d+)`)
)

// fourLetter sends cmd to the server at addr and returns its answer.
func fourLetter(ctx context.Context, addr, cmd string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", err
	}
	out, err := io.ReadAll(io.LimitReader(conn, 4<<20))
	return string(out), err
}

// number runs cmd on the server at addr and returns the number re finds
// in its answer.
func number(t testing.TB, ctx context.Context, addr, cmd string, re *regexp.Regexp) int {
	t.Helper()
	out, err := fourLetter(ctx, addr, cmd)
	require.NoError(t, err)
	m := re.FindStringSubmatch(out)
	require.NotNil(t, m, "%s answered %q", cmd, out)
	n, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return n
}

// serverWatches returns the total of the server's watches: its data
// watches (getData, exists) and its child watches (getChildren), as mntr's
// zk_watch_count gives them.
//
// Not wchs: its "Total watches" counts the data watches only (a
// getChildren watch is in neither wchs, wchc nor wchp), so a child watch
// left behind would go unseen there.
func serverWatches(t testing.TB, ctx context.Context, addr string) int {
	t.Helper()
	return number(t, ctx, addr, "mntr", watchCount)
}

// serverDataWatches returns wchs's total: the server's data watches only.
func serverDataWatches(t testing.TB, ctx context.Context, addr string) int {
	t.Helper()
	return number(t, ctx, addr, "wchs", totalWatches)
}

// each runs f(0) ... f(n-1), parallel at a time, and returns their errors
// joined.
func each(n int, f func(i int) error) error {
	var mu sync.Mutex
	var errs []error
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, parallel) {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("#%d: %w", i, err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// counts is one look at what a wait may leave behind.
type counts struct {
	server     int // the server's watches, data and child (mntr's zk_watch_count)
	data       int // the server's data watches (wchs)
	watches    int // the waiter client's one-shot watches (DataWatches)
	waiting    int // the Watches waiting on them
	goroutines int
}

func (c counts) String() string {
	return fmt.Sprintf("server watches %d (data %d, child %d), waiter's DataWatches (%d, %d), goroutines %d",
		c.server, c.data, c.server-c.data, c.watches, c.waiting, c.goroutines)
}

// look takes the counts now.
func look(t testing.TB, ctx context.Context, cl *zktest.Cluster, waiter *client.Client) counts {
	t.Helper()
	w, n := waiter.DataWatches()
	return counts{
		server:     serverWatches(t, ctx, cl.Addr(0)),
		data:       serverDataWatches(t, ctx, cl.Addr(0)),
		watches:    w,
		waiting:    n,
		goroutines: runtime.NumGoroutine(),
	}
}

// steady takes the counts once setup has settled: the same on five looks
// in a row (a setup may finish a release or a delete in the background).
func steady(t testing.TB, ctx context.Context, cl *zktest.Cluster, waiter *client.Client) counts {
	t.Helper()
	var last counts
	same := 0
	itest.Eventually(t, 30*time.Second, "the counts to settle after the setup", func() bool {
		c := look(t, ctx, cl, waiter)
		if c == last {
			same++
		} else {
			last, same = c, 0
		}
		return same >= 4
	})
	return last
}

// settle polls until ok holds of the counts; when settleWithin passes
// first, it logs what is left (the server's watches by path, the
// goroutines by stack) and fails the test.
func settle(t testing.TB, ctx context.Context, cl *zktest.Cluster, waiter *client.Client, what string, ok func(counts) bool) counts {
	t.Helper()
	deadline := time.Now().Add(settleWithin)
	for {
		c := look(t, ctx, cl, waiter)
		if ok(c) {
			return c
		}
		if time.Now().After(deadline) {
			diagnose(t, ctx, cl)
			require.FailNowf(t, "left behind", "%s: not within %v; last seen: %v", what, settleWithin, c)
		}
		time.Sleep(itest.PollEvery)
	}
}

// diagnose logs the server's data watches by path (wchp, cut short) and every
// goroutine's stack, grouped.
func diagnose(t testing.TB, ctx context.Context, cl *zktest.Cluster) {
	t.Helper()
	if out, err := fourLetter(ctx, cl.Addr(0), "wchp"); err == nil {
		t.Logf("server's data watches by path (wchp, first 60 lines):\n%s", firstLines(out, 60))
	} else {
		t.Logf("wchp: %v", err)
	}
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	s := buf.String()
	if len(s) > 60000 {
		s = s[:60000] + "\n...(cut)"
	}
	t.Logf("goroutines:\n%s", s)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines[n] = "...(cut)"
	}
	return strings.Join(lines, "\n")
}

// waiter is one wait of a recipe, made by the setup.
type waiter struct {
	// wait blocks until the recipe grants (got is true: the test fails) or
	// ctx ends.
	wait func(ctx context.Context) (got bool, err error)
	// done, when not nil, ends what the wait's handle still runs once
	// wait returned (a latch campaigns until its Close).
	done func(ctx context.Context) error
}

// recipe is one call that waits on ZooKeeper, with the state that keeps it
// waiting.
type recipe struct {
	name string
	// setup makes, on the path p, the holder's state that keeps waits on
	// p blocked, and n waiters on p on the waiter client (with any I/O
	// they need before they wait: a double barrier's Leave needs its
	// member in). release, when not nil, undoes the holder's state;
	// otherwise the holder's session does when the test ends.
	setup func(ctx context.Context, holder, waiter *client.Client, p string, n int) (ws []waiter, release func(context.Context) error, err error)
	// dirs are the nodes whose children the test compares, before the
	// waits and after: only the waiter's own nodes may go, none may come.
	dirs func(p string) []string
}

// shape is how many paths a run uses, and how many waits on each.
type shape struct {
	paths, perPath int
	// noRemoveWatches: the server has no removeWatches (3.4), so the
	// watches given up stay on it until they fire; the run then releases
	// the holder's state, which fires them, and expects the server back
	// at its count before the setup.
	noRemoveWatches bool
	// noContainers: the server has no container nodes (3.4), which a
	// namespace's root and a recipe's missing parents are made as: the
	// run uses no namespace (its server is its own) and makes every path
	// as a persistent node first.
	noContainers bool
}

// runAbandon runs recipe r on cl in shape s: the holder's setup on every
// path, every wait at once with one ctx, that ctx cancelled once every
// waiter waits with its watch, and then what must be back at its baseline.
func runAbandon(t *testing.T, cl *zktest.Cluster, r recipe, s shape) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	if s.noContainers {
		ns = ""
	}
	ctx := itest.Ctx(t, 4*time.Minute)
	holder := itest.Connect(t, cl, itest.Opts{NS: ns})
	wc := itest.Connect(t, cl, itest.Opts{NS: ns})
	_, err := holder.Create(ctx, root, nil, 0)
	require.NoError(t, err)
	paths := make([]string, s.paths)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/%04d", root, i)
	}
	if s.noContainers {
		require.NoError(t, each(len(paths), func(i int) error {
			_, err := holder.Create(ctx, paths[i], nil, 0)
			return err
		}), "making the paths")
	}
	total := s.paths * s.perPath
	pre := steady(t, ctx, cl, wc)

	// The holder's state and the waiters, on every path.
	ws := make([][]waiter, s.paths)
	releases := make([]func(context.Context) error, s.paths)
	start := time.Now()
	err = each(s.paths, func(i int) error {
		w, rel, err := r.setup(ctx, holder, wc, paths[i], s.perPath)
		ws[i], releases[i] = w, rel
		if err == nil && len(w) != s.perPath {
			err = fmt.Errorf("setup made %d waiters, want %d", len(w), s.perPath)
		}
		return err
	})
	released := false
	release := func() error {
		if released {
			return nil
		}
		released = true
		rctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		return each(s.paths, func(i int) error {
			if releases[i] == nil {
				return nil
			}
			return releases[i](rctx)
		})
	}
	t.Cleanup(func() { _ = release() }) // before the clients close (cleanups run last in, first out)
	require.NoError(t, err, "setup")
	setupTook := time.Since(start)

	// What the setup left: the nodes, and who owns them.
	before := snapshot(t, ctx, holder, wc, r, paths)
	base := steady(t, ctx, cl, wc)
	t.Logf("%s: %d paths x %d waits; setup took %v; before the setup: %v; baseline after it: %v",
		r.name, s.paths, s.perPath, setupTook.Round(time.Millisecond), pre, base)

	// Every wait at once, with one ctx.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		got bool
		err error
	}
	results := make(chan result, total)
	var running sync.WaitGroup
	for i := range ws {
		for _, w := range ws[i] {
			running.Go(func() {
				got, err := w.wait(wctx)
				results <- result{got, err}
			})
		}
	}
	t.Cleanup(func() { cancel(); running.Wait() })
	// Ready: every waiter has a Watch, the server has a watch more on
	// each path at least, and neither count has moved on three looks in
	// a row (every wait has settled into waiting).
	var peak, prev counts
	readyBy := time.Now().Add(readyWithin)
	for still := 0; ; {
		if n := len(results); n > 0 {
			res := <-results
			require.FailNowf(t, "a wait ended early", "%s: %d waits returned before their ctx ended; one: got %v, %v", r.name, n, res.got, res.err)
		}
		peak = look(t, ctx, cl, wc)
		if peak.server == prev.server && peak.data == prev.data && peak.watches == prev.watches && peak.waiting == prev.waiting {
			still++
		} else {
			prev, still = peak, 0
		}
		if peak.waiting >= total && peak.server-base.server >= s.paths && still >= 2 {
			break
		}
		if time.Now().After(readyBy) {
			diagnose(t, ctx, cl)
			require.FailNowf(t, "waiters not waiting", "%s: %d waiters not all waiting with a watch within %v (want DataWatches waiting >= %d and server watches >= %d); last seen: %v",
				r.name, total, readyWithin, total, base.server+s.paths, peak)
		}
		time.Sleep(itest.PollEvery)
	}
	t.Logf("%s: peak while waiting: %v (server +%d)", r.name, peak, peak.server-base.server)

	// Give up.
	cancel()
	var wrong []string
	deadline := time.After(returnWithin)
	for n := range total {
		select {
		case res := <-results:
			if res.got || !errors.Is(res.err, context.Canceled) {
				wrong = append(wrong, fmt.Sprintf("got %v, err %v", res.got, res.err))
			}
		case <-deadline:
			diagnose(t, ctx, cl)
			require.FailNowf(t, "waits still running", "%d of %d waits did not return within %v of their ctx's end", total-n, total, returnWithin)
		}
	}
	running.Wait()
	require.Empty(t, wrong, "waits that did not end with context.Canceled having acquired nothing (%d of %d)", len(wrong), total)
	returned := look(t, ctx, cl, wc)
	err = each(s.paths, func(i int) error {
		for _, w := range ws[i] {
			if w.done == nil {
				continue
			}
			if err := w.done(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err, "ending the waiters' handles")

	if !s.noRemoveWatches {
		after := settle(t, ctx, cl, wc, r.name+": the server's watches, the waiter's DataWatches and the goroutines back at their baseline",
			func(c counts) bool {
				return c.server == base.server && c.watches == 0 && c.waiting == 0 && c.goroutines <= base.goroutines
			})
		t.Logf("%s: when every wait had returned: %v; after: %v", r.name, returned, after)
		checkNodes(t, ctx, holder, wc, r, paths, before)
		return
	}
	after := settle(t, ctx, cl, wc, r.name+": the waiter's DataWatches and the goroutines back at their baseline",
		func(c counts) bool { return c.watches == 0 && c.waiting == 0 && c.goroutines <= base.goroutines })
	t.Logf("%s: when every wait had returned: %v; after: %v (server +%d: given-up watches a server without removeWatches keeps)",
		r.name, returned, after, after.server-base.server)
	checkNodes(t, ctx, holder, wc, r, paths, before)
	require.NoError(t, release(), "the holder's release")
	fired := settle(t, ctx, cl, wc, r.name+": the server's watches back at their count before the setup, once the holder released",
		func(c counts) bool { return c.server == pre.server && c.watches == 0 && c.waiting == 0 })
	t.Logf("%s: after the holder's release: %v (before the setup: %v)", r.name, fired, pre)
}

// nodes is what snapshot saw of a recipe's directories: each one's
// children, and which of them the waiter's session owned.
type nodes struct {
	kids   map[string][]string
	waiter map[string]bool // full child path: owned by the waiter's session
}

// snapshot lists r's directories on every path, and who owns each child.
func snapshot(t *testing.T, ctx context.Context, c, wc *client.Client, r recipe, paths []string) nodes {
	t.Helper()
	var mu sync.Mutex
	n := nodes{kids: map[string][]string{}, waiter: map[string]bool{}}
	err := each(len(paths), func(i int) error {
		for _, dir := range r.dirs(paths[i]) {
			kids, err := itest.TryChildren(c, dir)
			if err != nil {
				return err
			}
			owners := map[string]int64{}
			for _, k := range kids {
				ok, st, err := c.Exists(ctx, dir+"/"+k)
				if err != nil {
					return err
				}
				if ok {
					owners[k] = st.EphemeralOwner
				}
			}
			mu.Lock()
			n.kids[dir] = kids
			for k, o := range owners {
				if o == wc.Session().ID() {
					n.waiter[dir+"/"+k] = true
				}
			}
			mu.Unlock()
		}
		return nil
	})
	require.NoError(t, err, "listing the recipe's nodes")
	return n
}

// checkNodes waits until r's directories hold exactly what snapshot saw,
// less the waiter's nodes, and that no node of the waiter's session is
// left in them.
func checkNodes(t *testing.T, ctx context.Context, c, wc *client.Client, r recipe, paths []string, before nodes) {
	t.Helper()
	var bad string
	kept := 0
	deadline := time.Now().Add(settleWithin)
	for !func() bool {
		bad, kept = "", 0
		for _, p := range paths {
			for _, dir := range r.dirs(p) {
				want := slices.DeleteFunc(slices.Clone(before.kids[dir]), func(k string) bool { return before.waiter[dir+"/"+k] })
				got, err := itest.TryChildren(c, dir)
				require.NoError(t, err)
				if !slices.Equal(got, want) {
					bad = fmt.Sprintf("%s holds %q, want %q", dir, got, want)
					return false
				}
				kept += len(got)
				for _, k := range got {
					ok, st, err := c.Exists(ctx, dir+"/"+k)
					require.NoError(t, err)
					if ok && st.EphemeralOwner == wc.Session().ID() {
						bad = fmt.Sprintf("%s/%s is the waiter's", dir, k)
						return false
					}
				}
			}
		}
		return true
	}() {
		if time.Now().After(deadline) {
			require.FailNowf(t, "nodes left behind", "%s: not within %v: %s", r.name, settleWithin, bad)
		}
		time.Sleep(itest.PollEvery)
	}
	t.Logf("%s: nodes after: %d in the recipe's directories (the holder's setup's), none of the waiter's", r.name, kept)
}
