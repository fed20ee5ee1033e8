package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// locker is one worker's handle on the lock under test. Every recipe, and
// both sides of a read/write lock, plug into the driver through it.
type locker interface {
	Lock(ctx context.Context) error
	Unlock(ctx context.Context) error
}

// worker is one contender: its own session and its handle on the lock.
type worker struct {
	locker
	// shared marks a reader: it may be inside together with other shared
	// holders, never with an exclusive one.
	shared bool
	// close ends the worker's session.
	close func()
}

// recipe is one way of locking, set up for one run.
type recipe struct {
	// newWorker opens worker i's own session and its handle on the lock.
	newWorker func(ctx context.Context, i int) (worker, error)
	// events returns the running count of watch events delivered to the
	// recipe's waiters (process-wide for mutex; per recipe otherwise).
	events func() int64
	// independent means the workers do not share a lock (floor with several
	// workers): each is checked on its own and no handoff exists.
	independent bool
}

// runConfig is one run's settings.
type runConfig struct {
	recipe           string
	workers          int
	iters            int
	warmup           int
	session          time.Duration
	readers, writers int // rwlock only; workers = readers + writers
	// budget, when positive, caps the measured phase's duration: the run
	// then reports the cycles completed in it (fewer than workers x iters).
	budget time.Duration
}

// maxWorkers bounds the sessions of one run.
const maxWorkers = 5000

func (c runConfig) validate() error {
	switch {
	case !slices.Contains(recipeNames, c.recipe):
		return fmt.Errorf("unknown recipe %q (want one of %v)", c.recipe, recipeNames)
	case isRW(c.recipe) && (c.readers < 0 || c.writers < 0 || c.readers+c.writers < 1):
		return fmt.Errorf("rwlock needs -readers R -writers W with R, W >= 0 and R+W >= 1 (got %d, %d)", c.readers, c.writers)
	case !isRW(c.recipe) && (c.readers != 0 || c.writers != 0):
		return fmt.Errorf("-readers and -writers only go with -recipe rwlock or curator-rwlock")
	case c.workers < 1 || c.workers > maxWorkers:
		return fmt.Errorf("-workers must be in [1, %d], got %d", maxWorkers, c.workers)
	case c.iters < 1:
		return fmt.Errorf("-iters must be at least 1, got %d", c.iters)
	case c.warmup < 0:
		return fmt.Errorf("-warmup must be 0 or more, got %d", c.warmup)
	case c.session <= 0:
		return fmt.Errorf("-session must be positive, got %v", c.session)
	case c.budget < 0:
		return fmt.Errorf("-budget must be 0 (none) or positive, got %v", c.budget)
	}
	return nil
}

// isRW reports whether recipe is a read/write lock (-readers, -writers).
func isRW(recipe string) bool { return recipe == recipeRWLock || recipe == recipeCuratorRWLock }

// runOne sets the recipe up, opens every worker's session, warms up, then
// measures.
func runOne(ctx context.Context, e *env, cfg runConfig) (result, error) {
	if err := cfg.validate(); err != nil {
		return result{}, err
	}
	if isCuratorLock(cfg.recipe) {
		return runCuratorLock(ctx, e, cfg)
	}
	rec, err := newRecipe(ctx, e, cfg)
	if err != nil {
		return result{}, err
	}
	ws, err := openWorkers(ctx, cfg.workers, rec.newWorker)
	if err != nil {
		return result{}, err
	}
	defer closeWorkers(ws)

	checks := make([]*checker, len(ws))
	shared := &checker{}
	for i := range checks {
		checks[i] = shared
		if rec.independent {
			checks[i] = &checker{}
		}
	}
	measureHandoff := !rec.independent && cfg.workers > 1

	if cfg.warmup > 0 {
		if _, err := runPhase(ctx, ws, checks, cfg.warmup, false, 0); err != nil {
			return result{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	violationsBefore := totalViolations(checks, rec.independent)
	eventsBefore := rec.events()
	reqBefore, cpuBefore := e.requests(), cpuTime()
	start := time.Now()
	ph, err := runPhase(ctx, ws, checks, cfg.iters, measureHandoff, cfg.budget)
	elapsed := time.Since(start)
	if err != nil {
		return result{}, err
	}
	reqs := perOp(reqBefore, e.requests(), ph.ops)
	if e.link != nil {
		reqs += cpuPerOp(cpuTime()-cpuBefore, ph.ops)
	}
	return result{
		cfg:        cfg,
		ops:        ph.ops,
		elapsed:    elapsed,
		handoffs:   ph.handoffs,
		violations: totalViolations(checks, rec.independent) - violationsBefore,
		events:     rec.events() - eventsBefore,
		requests:   reqs,
	}, nil
}

// sessionWorker is a worker of any recipe: closer returns what ends its
// session (nil when it has none).
type sessionWorker interface{ closer() func() }

func (w worker) closer() func() { return w.close }

// openWorkers opens n workers' sessions with open, 32 at a time; if any
// fails, it closes those it opened.
func openWorkers[W sessionWorker](ctx context.Context, n int, open func(context.Context, int) (W, error)) ([]W, error) {
	return openWorkersAtOnce(ctx, n, 32, open)
}

// openWorkersAtOnce is openWorkers, atOnce at a time. A worker that open
// returns along with an error is closed too.
func openWorkersAtOnce[W sessionWorker](ctx context.Context, n, atOnce int, open func(context.Context, int) (W, error)) ([]W, error) {
	ws := make([]W, n)
	errs := make([]error, n)
	sem := make(chan struct{}, atOnce)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ws[i], errs[i] = open(ctx, i)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeWorkers(ws)
		return nil, fmt.Errorf("open the workers' sessions: %w", err)
	}
	return ws, nil
}

// closeWorkers ends every session, concurrently: a go-zookeeper Close may
// wait up to a second for the server's answer.
func closeWorkers[W sessionWorker](ws []W) {
	var wg sync.WaitGroup
	for _, w := range ws {
		if c := w.closer(); c != nil {
			wg.Go(c)
		}
	}
	wg.Wait()
}

// handoffClock carries the start of the latest releases to the next holders,
// so that a holder measures its handoff from the release it waited for: an
// exclusive holder waits for anyone's, a shared one only for an exclusive
// holder's (readers never wait for one another).
type handoffClock struct {
	exclusive atomic.Int64 // UnixNano of the latest exclusive release; 0: none yet
	shared    atomic.Int64 // UnixNano of the latest shared release; 0: none yet
}

// released records a release starting at t.
func (c *handoffClock) released(shared bool, t int64) {
	if shared {
		c.shared.Store(t)
		return
	}
	c.exclusive.Store(t)
}

// conflicting returns the start of the latest release a holder of this kind
// could have waited for.
func (c *handoffClock) conflicting(shared bool) int64 {
	if shared {
		return c.exclusive.Load()
	}
	return max(c.exclusive.Load(), c.shared.Load())
}

// errBudget ends a measured phase whose time budget is spent.
var errBudget = errors.New("time budget spent")

// phaseResult is what one phase did.
type phaseResult struct {
	ops      int             // completed cycles
	handoffs []time.Duration // measured handoffs
}

// runPhase runs iters cycles on every worker concurrently, for at most
// budget when budget > 0 (the workers then stop where they are and only
// completed cycles count). With measure, it records handoff latencies. The
// first error cancels the other workers.
func runPhase(ctx context.Context, ws []worker, checks []*checker, iters int, measure bool, budget time.Duration) (phaseResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if budget > 0 {
		t := time.AfterFunc(budget, func() { cancel(errBudget) })
		defer t.Stop()
	}
	var clock handoffClock
	samples := make([][]time.Duration, len(ws))
	done := make([]int, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			var err error
			samples[i], done[i], err = cycle(ctx, w, checks[i], &clock, iters, measure)
			if err != nil {
				cancel(fmt.Errorf("worker %d: %w", i, err))
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, errBudget) {
		return phaseResult{}, err
	}
	res := phaseResult{handoffs: slices.Concat(samples...)}
	for _, n := range done {
		res.ops += n
	}
	return res, nil
}

// unlockTimeout bounds an Unlock, which runs even when the phase is being
// cancelled: a holder always lets go, so the others can notice and stop.
const unlockTimeout = 30 * time.Second

// cycle is one worker's loop: lock -> check -> unlock. It returns the
// handoffs it measured and how many cycles it completed.
func cycle(ctx context.Context, w worker, check *checker, clock *handoffClock, iters int, measure bool) ([]time.Duration, int, error) {
	var samples []time.Duration
	if measure {
		samples = make([]time.Duration, 0, iters)
	}
	for done := range iters {
		if err := ctx.Err(); err != nil {
			return samples, done, err
		}
		waitStart := time.Now().UnixNano()
		if err := w.Lock(ctx); err != nil {
			return samples, done, fmt.Errorf("lock: %w", err)
		}
		acquired := time.Now().UnixNano()
		// A handoff is counted only when this holder was already waiting as
		// a conflicting holder's release began: it then waited for that
		// release (the latest one; for a writer behind readers, the last
		// reader's). A reader among readers only, or anyone who found the
		// lock free, has none.
		if t := clock.conflicting(w.shared); measure && t != 0 && waitStart < t {
			samples = append(samples, time.Duration(acquired-t))
		}
		check.enter(w.shared)
		runtime.Gosched() // stay inside a little, so an overlap has a chance to show
		check.leave(w.shared)
		clock.released(w.shared, time.Now().UnixNano())
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
		err := w.Unlock(uctx)
		cancel()
		if err != nil {
			return samples, done, fmt.Errorf("unlock: %w", err)
		}
	}
	return samples, iters, nil
}

// checker watches a critical section. Exclusive holders and shared holders
// count themselves in separate counters; an entry that finds someone inside
// it may not share with is a violation. With sequentially consistent
// atomics, of two overlapping entries at least one sees the other.
type checker struct {
	exclusive  atomic.Int64
	shared     atomic.Int64
	violations atomic.Int64
}

func (c *checker) enter(shared bool) {
	if shared {
		c.shared.Add(1)
		if c.exclusive.Load() != 0 {
			c.violations.Add(1)
		}
		return
	}
	if c.exclusive.Add(1) != 1 || c.shared.Load() != 0 {
		c.violations.Add(1)
	}
}

func (c *checker) leave(shared bool) {
	if shared {
		c.shared.Add(-1)
		return
	}
	c.exclusive.Add(-1)
}

// totalViolations sums the violations of the distinct checkers.
func totalViolations(checks []*checker, independent bool) int64 {
	if len(checks) == 0 {
		return 0
	}
	if !independent {
		return checks[0].violations.Load()
	}
	var n int64
	for _, c := range checks {
		n += c.violations.Load()
	}
	return n
}
