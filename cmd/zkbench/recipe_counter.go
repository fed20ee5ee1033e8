package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// The counter recipes: they measure increments of one shared counter, so
// they have a driver and a result line of their own:
//
//	recipe=counter workers=10 iters=500 ops=5000 secs=4.10 incs_per_s=1219.5 inc_p50_ms=6.10 inc_p99_ms=30.20 tries_per_inc=1.80 failures=3 promoted=12 worker_min=410 worker_max=612 violations=0
//
//	ops            measured increments that succeeded (workers x iters, or
//	               those that returned within -budget when it cut the
//	               measurement short)
//	secs           the measurement's time (at most -budget)
//	incs_per_s     ops / secs
//	worker_min/max the fewest and the most of ops one worker made
//	inc_p50/p99_ms of the increment calls that succeeded
//	tries_per_inc  conditional writes sent per measured increment, optimistic
//	               and under the lock, failed calls' included
//	failures       increment calls that lost every try (Curator: succeeded()
//	               false; Go: ErrContention), each made again
//	promoted       increment calls that took the promoted lock (-lock)
//	violations     how far the counter on the server is from the increments
//	               that succeeded, warm-up included (Go: plus at most those
//	               whose outcome was unknown when the budget ended them):
//	               must be 0
//
//	counter          recipes/counter
//	curator-counter  Curator 5.4's DistributedAtomicLong in a java process
//	                 (java/CuratorCounterBench.java)
//
// Each worker has a session of its own and its own handle; both sides use
// ExponentialBackoff(-retry-base, -retries) (or, with -retry-base 0,
// NTimes(-retries, 0)) for the optimistic tries and, with -lock, a promoted
// lock with the same policy.
const (
	recipeCounter        = "counter"
	recipeCuratorCounter = "curator-counter"
)

var counterRecipeNames = []string{recipeCounter, recipeCuratorCounter}

func isCounterRecipe(name string) bool { return slices.Contains(counterRecipeNames, name) }

// counterFlags are the counter recipes' own flags.
type counterFlags struct {
	base    time.Duration
	retries int
	lock    bool
	think   time.Duration // a random pause of up to this before each increment
	fresh   bool          // Go: a new handle for each increment, which remembers no version
}

func (f *counterFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.base, "retry-base", 5*time.Millisecond, "counter recipes: base sleep of the optimistic tries' ExponentialBackoff (0: NTimes(-retries, 0), retries at once)")
	fs.IntVar(&f.retries, "retries", 10, "counter recipes: retries of the optimistic tries' ExponentialBackoff")
	fs.BoolVar(&f.lock, "lock", false, "counter recipes: promote to a lock (the same policy) when the optimistic tries lose")
	fs.DurationVar(&f.think, "think", 0, "counter recipes: each worker pauses a random time up to this before each increment (whole milliseconds)")
	fs.BoolVar(&f.fresh, "fresh", false, "counter: a new handle for each increment, so every update reads first (as Curator's)")
}

// counterFlagNames are the flags only the counter recipes take.
var counterFlagNames = []string{"retry-base", "retries", "lock", "think", "fresh"}

// check refuses the counter flags with another recipe (or -all) and bad
// values.
func (f counterFlags) check(fs *flag.FlagSet, recipe string, all bool) error {
	var set []string
	fs.Visit(func(fl *flag.Flag) {
		if slices.Contains(counterFlagNames, fl.Name) {
			set = append(set, "-"+fl.Name)
		}
	})
	if len(set) > 0 && (all || !isCounterRecipe(recipe)) {
		return fmt.Errorf("%v only go with -recipe %s", set, strings.Join(counterRecipeNames, "|"))
	}
	if !isCounterRecipe(recipe) {
		return nil
	}
	return f.valid(recipe)
}

// valid reports a bad value of the counter flags.
func (f counterFlags) valid(recipe string) error {
	switch {
	case f.base < 0 || f.base%time.Millisecond != 0 || f.retries < 0:
		return fmt.Errorf("-retry-base must be whole milliseconds, 0 or more, and -retries at least 0, got %v, %d", f.base, f.retries)
	case f.think < 0 || f.think%time.Millisecond != 0:
		return fmt.Errorf("-think must be whole milliseconds, 0 or more, got %v", f.think)
	case f.fresh && recipe != recipeCounter:
		return fmt.Errorf("-fresh only goes with -recipe %s", recipeCounter)
	}
	return nil
}

func (f counterFlags) describe() string {
	p := fmt.Sprintf("exp(%v,%d)", f.base, f.retries)
	if f.base == 0 {
		p = fmt.Sprintf("ntimes(%d,0)", f.retries)
	}
	return fmt.Sprintf("policy=%s lock=%v think=%v fresh=%v", p, f.lock, f.think, f.fresh)
}

// policy is the optimistic tries' policy the flags give.
func (f counterFlags) policy() (retry.Policy, error) {
	if f.base == 0 {
		return retry.NTimes(f.retries, 0)
	}
	return retry.ExponentialBackoff(f.base, f.retries, 0)
}

// counterResult is one counter run's measurement.
type counterResult struct {
	recipe     string
	workers    int
	iters      int
	flags      counterFlags
	ops        int
	elapsed    time.Duration
	p50, p99   time.Duration
	tries      int64
	failures   int64
	promoted   int64
	minWorker  int
	maxWorker  int
	violations int64
}

func (r counterResult) line() string {
	secs := r.elapsed.Seconds()
	perSec, perInc := 0.0, 0.0
	if secs > 0 {
		perSec = float64(r.ops) / secs
	}
	if r.ops > 0 {
		perInc = float64(r.tries) / float64(r.ops)
	}
	return fmt.Sprintf("recipe=%s workers=%d iters=%d ops=%d secs=%.2f incs_per_s=%.1f inc_p50_ms=%.2f inc_p99_ms=%.2f tries_per_inc=%.2f failures=%d promoted=%d worker_min=%d worker_max=%d violations=%d %s",
		r.recipe, r.workers, r.iters, r.ops, secs, perSec, millis(r.p50), millis(r.p99), perInc, r.failures, r.promoted,
		r.minWorker, r.maxWorker, r.violations, r.flags.describe())
}

// runCounterCmd runs one counter recipe and prints its line.
func runCounterCmd(ctx context.Context, e *env, cfg runConfig, f counterFlags, stdout io.Writer) error {
	res, err := runCounter(ctx, e, cfg, f)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, res.line())
	return err
}

func runCounter(ctx context.Context, e *env, cfg runConfig, f counterFlags) (counterResult, error) {
	if err := cfg.validate(); err != nil {
		return counterResult{}, err
	}
	if err := f.valid(cfg.recipe); err != nil {
		return counterResult{}, err
	}
	dir, err := e.runDir(fmt.Sprintf("%s-w%d", cfg.recipe, cfg.workers))
	if err != nil {
		return counterResult{}, err
	}
	var res counterResult
	var done, maybes int
	if cfg.recipe == recipeCuratorCounter {
		res, done, err = runCuratorCounter(ctx, e, cfg, f, dir)
	} else {
		res, done, maybes, err = runGoCounter(ctx, e, cfg, f, dir)
	}
	if err != nil {
		return counterResult{}, err
	}
	res.recipe, res.workers, res.iters, res.flags = cfg.recipe, cfg.workers, cfg.iters, f
	data, _, err := e.admin.Get(dir + "/counter")
	if err != nil {
		return counterResult{}, fmt.Errorf("read the counter: %w", err)
	}
	if len(data) != 8 {
		return counterResult{}, fmt.Errorf("the counter holds % x", data)
	}
	switch v := int64(binary.BigEndian.Uint64(data)); {
	case v < int64(done):
		res.violations = int64(done) - v
	case v > int64(done+maybes):
		res.violations = v - int64(done+maybes)
	}
	return res, nil
}

// counterWorker is one worker's session and counter.
type counterWorker struct {
	c     func() *counter.Counter // the handle for the next increment
	think time.Duration
	close func()
}

func (w counterWorker) closer() func() { return w.close }

// runGoCounter measures recipes/counter; done is every increment that
// succeeded, warm-up included, and maybes those whose outcome was unknown
// (a *MaybeAppliedError: the budget ended them while their write was in
// flight).
func runGoCounter(ctx context.Context, e *env, cfg runConfig, f counterFlags, dir string) (_ counterResult, done, maybes int, _ error) {
	policy, err := f.policy()
	if err != nil {
		return counterResult{}, 0, 0, err
	}
	opts := []counter.Option{counter.WithRetryPolicy(policy)}
	if f.lock {
		opts = append(opts, counter.WithPromotedLock(counter.PromotedLock{Path: dir + "/lock", RetryPolicy: policy}))
	}
	ws, err := openWorkers(ctx, cfg.workers, func(ctx context.Context, _ int) (counterWorker, error) {
		c, err := startClient(ctx, e, cfg.session)
		if err != nil {
			return counterWorker{}, err
		}
		ct, err := counter.New(c, dir+"/counter", opts...)
		if err != nil {
			_ = c.Close()
			return counterWorker{}, err
		}
		handle := func() *counter.Counter { return ct }
		if f.fresh {
			handle = func() *counter.Counter {
				ct, _ := counter.New(c, dir+"/counter", opts...) // as above: no error, no I/O
				return ct
			}
		}
		return counterWorker{c: handle, think: f.think, close: func() { _ = c.Close() }}, nil
	})
	if err != nil {
		return counterResult{}, 0, 0, err
	}
	defer closeWorkers(ws)
	warm, err := counterPhase(ctx, ws, cfg.warmup, 0)
	if err != nil {
		return counterResult{}, 0, 0, fmt.Errorf("warm-up: %w", err)
	}
	start := time.Now()
	ph, err := counterPhase(ctx, ws, cfg.iters, cfg.budget)
	elapsed := time.Since(start)
	if err != nil {
		return counterResult{}, 0, 0, err
	}
	if cfg.budget > 0 {
		elapsed = min(elapsed, cfg.budget)
	}
	slices.Sort(ph.lat)
	return counterResult{ops: len(ph.lat), elapsed: elapsed, p50: percentile(ph.lat, 50), p99: percentile(ph.lat, 99),
			tries: ph.tries, failures: ph.failures, promoted: ph.promoted,
			minWorker: slices.Min(ph.perWorker), maxWorker: slices.Max(ph.perWorker)},
		len(warm.lat) + len(ph.lat), warm.maybes + ph.maybes, nil
}

// counterPhaseResult is what one phase's increments did.
type counterPhaseResult struct {
	lat                       []time.Duration // of the increments that succeeded
	tries, failures, promoted int64
	maybes                    int   // increments whose outcome is unknown
	perWorker                 []int // each worker's successes
}

// counterPhase has every worker increment iters times at once (for at most
// budget when positive; only increments that returned count then),
// making again every increment that lost every try.
func counterPhase(ctx context.Context, ws []counterWorker, iters int, budget time.Duration) (counterPhaseResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if budget > 0 {
		t := time.AfterFunc(budget, func() { cancel(errBudget) })
		defer t.Stop()
	}
	var mu sync.Mutex
	all := counterPhaseResult{perWorker: make([]int, len(ws))}
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			var mine counterPhaseResult
			defer func() {
				mu.Lock()
				all.lat = append(all.lat, mine.lat...)
				all.tries, all.failures, all.promoted = all.tries+mine.tries, all.failures+mine.failures, all.promoted+mine.promoted
				all.maybes += mine.maybes
				all.perWorker[i] = len(mine.lat)
				mu.Unlock()
			}()
			rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			for done := 0; done < iters && ctx.Err() == nil; {
				// Whole milliseconds below -think, as the java side draws them.
				if ms := w.think.Milliseconds(); ms > 0 && sleepCtx(ctx, time.Duration(rng.Int64N(ms))*time.Millisecond) != nil {
					return
				}
				start := time.Now()
				r, err := w.c().Increment(ctx)
				mine.tries += int64(r.Stats.OptimisticTries + r.Stats.PromotedTries)
				if r.Stats.PromotedTries > 0 {
					mine.promoted++
				}
				switch {
				case err == nil:
					mine.lat = append(mine.lat, time.Since(start))
					done++
				case errors.Is(err, counter.ErrContention):
					mine.failures++
				case ctx.Err() != nil && errors.Is(err, counter.ErrMaybeApplied):
					mine.maybes++ // the budget ended it while its write was in flight
					return
				case ctx.Err() != nil:
					return // the budget ended it: nothing was written
				default:
					cancel(fmt.Errorf("worker %d: %w", i, err))
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, errBudget) {
		return counterPhaseResult{}, err
	}
	return all, nil
}

// sleepCtx waits d or until ctx ends (then its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
