package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// parseLine splits a result line into its key=value fields.
func parseLine(t *testing.T, line string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("field %q of %q is not key=value", f, line)
		}
		fields[k] = v
	}
	for _, k := range []string{"recipe", "workers", "iters", "ops", "secs", "ops_per_s",
		"handoff_p50_ms", "handoff_p99_ms", "violations", "events_per_release"} {
		if _, ok := fields[k]; !ok {
			t.Fatalf("line %q has no %s", line, k)
		}
	}
	return fields
}

func number(t *testing.T, fields map[string]string, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(fields[key], 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", key, fields[key], err)
	}
	return v
}

func runCmd(t *testing.T, args ...string) (stdout string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	err = run(ctx, args, &out, &errOut)
	if err != nil {
		t.Logf("stderr:\n%s", errOut.String())
	}
	return out.String(), err
}

func TestZkbenchRuns(t *testing.T) {
	for _, recipe := range []string{recipeMutex, recipeGozk, recipeNaive, recipeFloor} {
		t.Run(recipe, func(t *testing.T) {
			out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipe, "-workers", "2", "-iters", "5", "-warmup", "1")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 1 || lines[0] == "" {
				t.Fatalf("want exactly one line on stdout, got %q", out)
			}
			f := parseLine(t, lines[0])
			if f["recipe"] != recipe {
				t.Errorf("recipe=%s, want %s", f["recipe"], recipe)
			}
			if f["workers"] != "2" || f["iters"] != "5" {
				t.Errorf("workers=%s iters=%s, want 2 and 5", f["workers"], f["iters"])
			}
			if f["ops"] != "10" {
				t.Errorf("ops=%s, want workers*iters = 10", f["ops"])
			}
			if f["violations"] != "0" {
				t.Errorf("violations=%s, want 0", f["violations"])
			}
			if secs := number(t, f, "secs"); secs <= 0 {
				t.Errorf("secs=%v, want > 0", secs)
			}
			p50, p99 := number(t, f, "handoff_p50_ms"), number(t, f, "handoff_p99_ms")
			if p50 < 0 || p99 < p50 {
				t.Errorf("handoff p50=%v p99=%v: want 0 <= p50 <= p99", p50, p99)
			}
			ev := number(t, f, "events_per_release")
			switch recipe {
			case recipeFloor:
				if ev != 0 || p99 != 0 {
					t.Errorf("floor sets no watch and hands nothing off, got events_per_release=%v handoff_p99=%v", ev, p99)
				}
			case recipeMutex, recipeGozk:
				// One waiter at most: a release wakes it at most once.
				if ev < 0 || ev > 1 {
					t.Errorf("events_per_release=%v, want within [0, 1] with 2 workers", ev)
				}
			}
		})
	}
}

func TestZkbenchOneWorkerHasNoHandoff(t *testing.T) {
	out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipeMutex, "-workers", "1", "-iters", "5", "-warmup", "0")
	if err != nil {
		t.Fatal(err)
	}
	f := parseLine(t, strings.TrimSpace(out))
	if f["handoff_p50_ms"] != "0.00" || f["handoff_p99_ms"] != "0.00" || f["events_per_release"] != "0.00" {
		t.Errorf("one worker: want no handoff and no waiter event, got %q", out)
	}
}

func TestZkbenchRWLockReadersAloneHaveNoHandoff(t *testing.T) {
	out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipeRWLock, "-readers", "4", "-writers", "0", "-iters", "10", "-warmup", "1")
	if err != nil {
		t.Fatal(err)
	}
	f := parseLine(t, strings.TrimSpace(out))
	if f["ops"] != "40" || f["handoff_p50_ms"] != "0.00" || f["handoff_p99_ms"] != "0.00" {
		t.Errorf("readers alone: want ops=40 and no handoff, got %q", out)
	}
}

func TestZkbenchRWLock(t *testing.T) {
	out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipeRWLock, "-readers", "3", "-writers", "1", "-iters", "5", "-warmup", "1")
	if err != nil {
		t.Fatal(err)
	}
	f := parseLine(t, strings.TrimSpace(out))
	if f["recipe"] != recipeRWLock || f["workers"] != "4" || f["ops"] != "20" {
		t.Errorf("want recipe=rwlock workers=4 ops=20, got %q", out)
	}
	if f["violations"] != "0" {
		t.Errorf("violations=%s, want 0: a writer overlapped someone", f["violations"])
	}
}

func TestZkbenchRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", "nope"},
		{"-workers", "0"},
		{"-workers", "100000"},
		{"-iters", "0"},
		{"-warmup", "-1"},
		{"-session", "0s"},
		{"-budget", "-1s"},
		{"-recipe", "mutex", "-readers", "1"},
		{"-recipe", "rwlock"},
		{"-recipe", "rwlock", "-readers", "-1", "-writers", "2"},
		{"-big"},
		{"-zk", " , "},
		{"-timeout", "0s"},
		{"-backend", "podman"},
		{"stray"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
		if out.Len() != 0 {
			t.Errorf("%q: printed %q", args, out.String())
		}
	}
}

func TestRunAllPrintsSettingsAndOneLinePerRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := openEnv(ctx, zkAddr, "", false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	plan := []runConfig{
		{recipe: recipeFloor, workers: 1, iters: 3, warmup: 1, session: defaultSession},
		{recipe: recipeNaive, workers: 3, iters: 2, warmup: 0, session: defaultSession},
		{recipe: recipeMutex, workers: 3, iters: 2, warmup: 1, session: defaultSession, budget: time.Minute},
	}
	defer func(n int) { serverWarmup = n }(serverWarmup)
	serverWarmup = 3
	var out bytes.Buffer
	if err := runAll(ctx, e, plan, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1+len(plan) {
		t.Fatalf("want a settings line and %d result lines, got:\n%s", len(plan), out.String())
	}
	if !strings.HasPrefix(lines[0], "# zkbench -all: ") || !strings.Contains(lines[0], "naive/w3/i2/k0") ||
		!strings.Contains(lines[0], "mutex/w3/i2/k1/max1m0s") {
		t.Errorf("settings line does not describe the plan: %q", lines[0])
	}
	for i, c := range plan {
		f := parseLine(t, lines[i+1])
		if f["recipe"] != c.recipe || f["ops"] != strconv.Itoa(c.workers*c.iters) || f["violations"] != "0" {
			t.Errorf("run %d (%s x%d): %q", i, c.recipe, c.workers, lines[i+1])
		}
	}
}

func TestAllPlanStaysModest(t *testing.T) {
	plan := allPlan(false, defaultSession)
	has := map[string]bool{}
	for _, c := range plan {
		if err := c.validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
		has[c.recipe+"/"+strconv.Itoa(c.workers)] = true
		if c.workers >= 1000 {
			t.Errorf("1000 waiters without -big: %+v", c)
		}
	}
	for _, want := range []string{"floor/1", "mutex/1", "gozk/1", "naive/1", "mutex/10", "gozk/10", "naive/10", "mutex/100", "naive/100", "rwlock/16", "rwlock/10"} {
		if !has[want] {
			t.Errorf("matrix lacks %s", want)
		}
	}
	big := allPlan(true, defaultSession)
	if len(big) != len(plan)+2 || big[len(big)-1].workers != 1000 || big[len(big)-2].workers != 1000 {
		t.Errorf("-big should add two runs with 1000 waiters: %+v", big[len(plan):])
	}
}

func TestBudgetCutsTheMeasurementShort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e, err := openEnv(ctx, zkAddr, "", false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	cfg := runConfig{recipe: recipeMutex, workers: 2, iters: 1_000_000, session: defaultSession, budget: 500 * time.Millisecond}
	res, err := runOne(ctx, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.ops <= 0 || res.ops >= cfg.workers*cfg.iters {
		t.Errorf("ops=%d: want some but not all of %d cycles", res.ops, cfg.workers*cfg.iters)
	}
	if res.violations != 0 {
		t.Errorf("violations=%d", res.violations)
	}
}

// localLock is an in-process lock, to test the driver without ZooKeeper.
type localLock struct {
	mu *sync.Mutex
}

func (l localLock) Lock(context.Context) error   { l.mu.Lock(); return nil }
func (l localLock) Unlock(context.Context) error { l.mu.Unlock(); return nil }

func localWorkers(n int) ([]worker, []*checker) {
	var mu sync.Mutex
	ws := make([]worker, n)
	checks := make([]*checker, n)
	shared := &checker{}
	for i := range ws {
		ws[i] = worker{locker: localLock{&mu}}
		checks[i] = shared
	}
	return ws, checks
}

func TestPhaseCountsCyclesAndHandoffs(t *testing.T) {
	ws, checks := localWorkers(4)
	res, err := runPhase(context.Background(), ws, checks, 200, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.ops != 800 {
		t.Errorf("ops=%d, want 800", res.ops)
	}
	if len(res.handoffs) == 0 || len(res.handoffs) >= res.ops {
		t.Errorf("%d handoffs in %d cycles: want some, fewer than the cycles", len(res.handoffs), res.ops)
	}
	if v := checks[0].violations.Load(); v != 0 {
		t.Errorf("violations=%d under a real mutex", v)
	}

	ws, checks = localWorkers(1)
	res, err = runPhase(context.Background(), ws, checks, 50, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.handoffs) != 0 {
		t.Errorf("one worker measured %d handoffs, want 0", len(res.handoffs))
	}
}

// localReadLock and localWriteLock are the two sides of an in-process
// read/write lock. A read Lock takes a little while even when it need not
// wait, as a round trip to ZooKeeper does.
type localReadLock struct{ mu *sync.RWMutex }

func (l localReadLock) Lock(context.Context) error {
	time.Sleep(100 * time.Microsecond)
	l.mu.RLock()
	return nil
}
func (l localReadLock) Unlock(context.Context) error { l.mu.RUnlock(); return nil }

type localWriteLock struct{ mu *sync.RWMutex }

func (l localWriteLock) Lock(context.Context) error   { l.mu.Lock(); return nil }
func (l localWriteLock) Unlock(context.Context) error { l.mu.Unlock(); return nil }

// localRWWorkers returns readers then writers on one in-process lock.
func localRWWorkers(readers, writers int) ([]worker, []*checker) {
	var mu sync.RWMutex
	ws := make([]worker, 0, readers+writers)
	checks := make([]*checker, readers+writers)
	shared := &checker{}
	for range readers {
		ws = append(ws, worker{locker: localReadLock{&mu}, shared: true})
	}
	for range writers {
		ws = append(ws, worker{locker: localWriteLock{&mu}})
	}
	for i := range checks {
		checks[i] = shared
	}
	return ws, checks
}

// Readers never wait for one another: a run of readers alone has no handoff,
// however long their Lock calls take; writers among them do hand off.
func TestPhaseReadersAloneHaveNoHandoff(t *testing.T) {
	ws, checks := localRWWorkers(8, 0)
	res, err := runPhase(context.Background(), ws, checks, 300, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.ops != 8*300 || len(res.handoffs) != 0 {
		t.Errorf("readers alone: ops=%d handoffs=%d, want %d and 0", res.ops, len(res.handoffs), 8*300)
	}

	ws, checks = localRWWorkers(6, 2)
	res, err = runPhase(context.Background(), ws, checks, 300, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.handoffs) == 0 || len(res.handoffs) >= res.ops {
		t.Errorf("%d handoffs in %d cycles of readers and writers: want some, fewer than the cycles", len(res.handoffs), res.ops)
	}
	if v := checks[0].violations.Load(); v != 0 {
		t.Errorf("violations=%d under a real RWMutex", v)
	}
}

// failingLock fails its n-th Lock.
type failingLock struct {
	mu    sync.Mutex
	calls int
	n     int
}

var errBoom = errors.New("boom")

func (l *failingLock) Lock(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.calls == l.n {
		return errBoom
	}
	return nil
}

func (l *failingLock) Unlock(context.Context) error { return nil }

func TestPhaseStopsOnTheFirstError(t *testing.T) {
	var waiting blockingLock
	ws := []worker{{locker: &failingLock{n: 3}}, {locker: &waiting}}
	checks := []*checker{{}, {}}
	_, err := runPhase(context.Background(), ws, checks, 1_000_000, false, 0)
	if !errors.Is(err, errBoom) {
		t.Fatalf("got %v, want %v", err, errBoom)
	}
}

// blockingLock blocks in Lock until ctx ends, like a waiter behind a holder
// that never lets go.
type blockingLock struct{}

func (blockingLock) Lock(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
func (blockingLock) Unlock(context.Context) error   { return nil }

func TestCheckerSeesOverlaps(t *testing.T) {
	var c checker
	c.enter(false)
	c.enter(false) // a second exclusive holder
	if got := c.violations.Load(); got != 1 {
		t.Errorf("two exclusive holders: %d violations, want 1", got)
	}
	c.leave(false)
	c.leave(false)

	var r checker
	r.enter(true)
	r.enter(true)
	if got := r.violations.Load(); got != 0 {
		t.Errorf("two readers: %d violations, want 0", got)
	}
	r.enter(false) // a writer with readers inside
	if got := r.violations.Load(); got != 1 {
		t.Errorf("writer among readers: %d violations, want 1", got)
	}
	r.enter(true) // a reader with a writer inside
	if got := r.violations.Load(); got != 2 {
		t.Errorf("reader with a writer inside: %d violations, want 2", got)
	}
}

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	cases := []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 99, 4 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 50, 5 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
	}
	for _, c := range cases {
		if got := percentile(c.in, c.p); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.in, c.p, got, c.want)
		}
	}
}

func TestResultLine(t *testing.T) {
	r := result{
		cfg:      runConfig{recipe: recipeMutex, workers: 10, iters: 100},
		ops:      1000,
		elapsed:  2 * time.Second,
		handoffs: []time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond},
		events:   990,
	}
	want := "recipe=mutex workers=10 iters=100 ops=1000 secs=2.00 ops_per_s=500.0 handoff_p50_ms=2.00 handoff_p99_ms=3.00 violations=0 events_per_release=0.99"
	if got := r.line(); got != want {
		t.Errorf("line:\n got %s\nwant %s", got, want)
	}
}

// parseSemLine splits a semaphore result line into its key=value fields.
func parseSemLine(t *testing.T, line string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("field %q of %q is not key=value", f, line)
		}
		fields[k] = v
	}
	for _, k := range []string{"recipe", "workers", "max", "iters", "ops", "secs", "ops_per_s",
		"acquire_p50_ms", "acquire_p99_ms", "max_inside", "violations", "server_max_leases"} {
		if _, ok := fields[k]; !ok {
			t.Fatalf("line %q has no %s", line, k)
		}
	}
	return fields
}

// The semaphore recipes run; Go's and Curator's never let more than -max
// workers hold a lease at once, by the bench's counter and on the server.
func TestZkbenchSemaphore(t *testing.T) {
	for _, recipe := range []string{recipeSemaphore, recipeSemFloor, recipeCuratorSem} {
		t.Run(recipe, func(t *testing.T) {
			out, err := runCmd(t, "-zk", zkAddr, "-recipe", recipe, "-workers", "4", "-max", "2", "-iters", "8", "-warmup", "1")
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 1 || lines[0] == "" {
				t.Fatalf("want exactly one line on stdout, got %q", out)
			}
			f := parseSemLine(t, lines[0])
			if f["recipe"] != recipe || f["workers"] != "4" || f["max"] != "2" || f["ops"] != "32" {
				t.Errorf("want recipe=%s workers=4 max=2 ops=32, got %q", recipe, lines[0])
			}
			if f["violations"] != "0" {
				t.Errorf("violations=%s, want 0: %q", f["violations"], lines[0])
			}
			inside := number(t, f, "max_inside")
			if inside < 1 || inside > 4 {
				t.Errorf("max_inside=%v, want within [1, workers]", inside)
			}
			p50, p99 := number(t, f, "acquire_p50_ms"), number(t, f, "acquire_p99_ms")
			if p50 <= 0 || p99 < p50 {
				t.Errorf("acquire p50=%v p99=%v: want 0 < p50 <= p99", p50, p99)
			}
			if recipe == recipeSemFloor {
				return // enforces no limit
			}
			if inside > 2 {
				t.Errorf("max_inside=%v above -max 2", inside)
			}
			// Curator: one acquirer's waiting node may sit beside the
			// holders'. Go: fast-path nodes may too, for a moment.
			s := number(t, f, "server_max_leases")
			if s < 0 || (recipe == recipeCuratorSem && s > 3) || s > 4 {
				t.Errorf("server_max_leases=%v, want within [0, max+1] (Curator) or [0, workers] (Go)", s)
			}
		})
	}
}

func TestZkbenchSemaphoreRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-recipe", recipeSemaphore, "-max", "0"},
		{"-recipe", recipeCuratorSem, "-max", "-1"},
		{"-recipe", recipeMutex, "-max", "3"},
		{"-all", "-max", "3"},
		{"-recipe", recipeSemFloor, "-readers", "1"},
	} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
		if out.Len() != 0 {
			t.Errorf("%q: printed %q", args, out.String())
		}
	}
}

// -count is refused, not ignored, where a recipe's line has no req_per_op.
func TestZkbenchCountRefusedWhereIgnored(t *testing.T) {
	for _, recipe := range slices.Concat(cacheRecipeNames, counterRecipeNames) {
		var out bytes.Buffer
		err := run(context.Background(), []string{"-recipe", recipe, "-count"}, &out, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-count") {
			t.Errorf("-recipe %s -count: got %v, want an error naming -count", recipe, err)
		}
		if out.Len() != 0 {
			t.Errorf("-recipe %s -count: printed %q", recipe, out.String())
		}
	}
}

func TestHolderCountSeesMoreThanMax(t *testing.T) {
	var h holderCount
	h.enter(2)
	h.enter(2)
	if h.violations.Load() != 0 || h.peak.Load() != 2 {
		t.Errorf("two holders of 2: violations=%d peak=%d, want 0 and 2", h.violations.Load(), h.peak.Load())
	}
	h.enter(2)
	if h.violations.Load() != 1 || h.peak.Load() != 3 {
		t.Errorf("three holders of 2: violations=%d peak=%d, want 1 and 3", h.violations.Load(), h.peak.Load())
	}
	h.leave()
	h.leave()
	h.leave()
	if h.inside.Load() != 0 {
		t.Errorf("inside=%d after every leave", h.inside.Load())
	}
}

func TestParseCuratorLine(t *testing.T) {
	cfg := semConfig{runConfig: runConfig{recipe: recipeCuratorSem, workers: 10, iters: 100}, max: 5}
	res, err := parseCuratorLine("noise\nrecipe=curator-semaphore workers=10 max=5 iters=100 ops=1000 secs=4.00 ops_per_s=250.0 acquire_p50_ms=33.60 acquire_p99_ms=66.00 max_inside=5 violations=0\n", cfg)
	if err != nil {
		t.Fatal(err)
	}
	res.serverMax = 6
	want := "recipe=curator-semaphore workers=10 max=5 iters=100 ops=1000 secs=4.00 ops_per_s=250.0 acquire_p50_ms=33.60 acquire_p99_ms=66.00 max_inside=5 violations=0 server_max_leases=6"
	if got := res.line(); got != want {
		t.Errorf("line:\n got %s\nwant %s", got, want)
	}
	if _, err := parseCuratorLine("recipe=curator-semaphore ops=x\n", cfg); err == nil {
		t.Error("a bad line parsed")
	}
	if _, err := parseCuratorLine("nothing\n", cfg); err == nil {
		t.Error("no line parsed")
	}
}
