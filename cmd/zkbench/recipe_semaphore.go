package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
)

// The semaphore recipes: they measure acquire -> release of one lease of a
// semaphore with -max leases, not a lock, so they have a driver and a result
// line of their own.
const (
	recipeSemaphore  = "semaphore"         // recipes/semaphore
	recipeSemFloor   = "semfloor"          // bare create + getChildren + delete in leases/
	recipeCuratorSem = "curator-semaphore" // Curator 5.4's InterProcessSemaphoreV2 (java)
)

var semRecipeNames = []string{recipeSemaphore, recipeSemFloor, recipeCuratorSem}

func isSemRecipe(name string) bool { return slices.Contains(semRecipeNames, name) }

// defaultMax is -max's default: the leases of a semaphore run.
const defaultMax = 5

// semConfig is one semaphore run's settings: a runConfig and the limit.
type semConfig struct {
	runConfig
	max int
}

// semResult is one semaphore run's measurement.
type semResult struct {
	cfg      semConfig
	ops      int
	elapsed  time.Duration
	p50, p99 time.Duration // of Acquire's latency
	// maxInside is the peak number of workers holding a lease at once, by
	// the bench's own counter; violations counts the entries that found
	// more than max holders inside, plus, for Curator, the server samples
	// that saw more than max+1 lease nodes (its protocol lets one waiting
	// acquirer's node sit beside max holders). Go's fast path may leave
	// more nodes there for a moment (each deleted at once unless its
	// owner's own listing showed room), so for Go the sample is
	// information only; the integration tests check Go on the server by
	// sequence at every grant.
	maxInside  int64
	violations int64
	// serverMax is the most lease nodes a sampler saw in leases/ on the
	// server during the measurement; -1 when not sampled (semfloor).
	serverMax int
}

// line renders the result as the one line zkbench prints per run.
func (r semResult) line() string {
	secs := r.elapsed.Seconds()
	opsPerSec := 0.0
	if secs > 0 {
		opsPerSec = float64(r.ops) / secs
	}
	return fmt.Sprintf("recipe=%s workers=%d max=%d iters=%d ops=%d secs=%.2f ops_per_s=%.1f acquire_p50_ms=%.2f acquire_p99_ms=%.2f max_inside=%d violations=%d server_max_leases=%d",
		r.cfg.recipe, r.cfg.workers, r.cfg.max, r.cfg.iters, r.ops, secs, opsPerSec,
		millis(r.p50), millis(r.p99), r.maxInside, r.violations, r.serverMax)
}

// semWorker is one contender of a semaphore run, with a session of its own.
type semWorker struct {
	// acquire takes one lease and returns how to give it back.
	acquire func(ctx context.Context) (release func(ctx context.Context) error, err error)
	close   func()
}

// runSemaphore runs one semaphore recipe: Go's and the floor here, Curator's
// in a java process (runCurator).
func runSemaphore(ctx context.Context, e *env, cfg semConfig) (semResult, error) {
	if err := cfg.validate(); err != nil {
		return semResult{}, err
	}
	if cfg.max < 1 {
		return semResult{}, fmt.Errorf("-max must be at least 1, got %d", cfg.max)
	}
	dir, err := e.runDir(fmt.Sprintf("%s-w%d-l%d", cfg.recipe, cfg.workers, cfg.max))
	if err != nil {
		return semResult{}, err
	}
	if cfg.recipe == recipeCuratorSem {
		return runCurator(ctx, e, cfg, dir)
	}
	newWorker := func(ctx context.Context, _ int) (semWorker, error) { return goSemWorker(ctx, e, cfg, dir) }
	if cfg.recipe == recipeSemFloor {
		if err := ensureNode(e.admin, path.Join(dir, semaphore.LeasesDir)); err != nil {
			return semResult{}, err
		}
		newWorker = func(ctx context.Context, _ int) (semWorker, error) { return semFloorWorker(ctx, e, cfg, dir) }
	}
	ws, err := openWorkers(ctx, cfg.workers, newWorker)
	if err != nil {
		return semResult{}, err
	}
	defer closeWorkers(ws)

	var count holderCount
	if cfg.warmup > 0 {
		if _, err := semPhase(ctx, ws, &count, cfg.max, cfg.warmup, 0); err != nil {
			return semResult{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	count = holderCount{}
	var sampler *leaseSampler
	if cfg.recipe == recipeSemaphore {
		sampler = sampleLeases(ctx, e.admin, path.Join(dir, semaphore.LeasesDir))
	}
	start := time.Now()
	ph, err := semPhase(ctx, ws, &count, cfg.max, cfg.iters, cfg.budget)
	elapsed := time.Since(start)
	serverMax := -1
	if sampler != nil {
		serverMax = sampler.stop()
	}
	if err != nil {
		return semResult{}, err
	}
	sorted := slices.Clone(ph.acquires)
	slices.Sort(sorted)
	res := semResult{
		cfg: cfg, ops: ph.ops, elapsed: elapsed,
		p50: percentile(sorted, 50), p99: percentile(sorted, 99),
		maxInside: count.peak.Load(), violations: count.violations.Load(),
		serverMax: serverMax,
	}
	switch {
	case cfg.recipe == recipeSemFloor:
		res.violations = 0 // no limit to violate
	case cfg.recipe == recipeCuratorSem && serverMax > cfg.max+1:
		res.violations++
	}
	return res, nil
}

// goSemWorker is one recipes/semaphore handle on a client of its own.
func goSemWorker(ctx context.Context, e *env, cfg semConfig, dir string) (semWorker, error) {
	c, err := startClient(ctx, e, cfg.session)
	if err != nil {
		return semWorker{}, err
	}
	s, err := semaphore.New(c, dir, cfg.max)
	if err != nil {
		_ = c.Close()
		return semWorker{}, err
	}
	return semWorker{
		acquire: func(ctx context.Context) (func(context.Context) error, error) {
			lease, err := s.Acquire(ctx)
			if err != nil {
				return nil, err
			}
			return lease.Release, nil
		},
		close: func() { _ = c.Close() },
	}, nil
}

// semFloorWorker makes the semaphore's bare requests without its locks
// mutex and without waiting: create an ephemeral sequential node in leases/,
// list leases/, delete the node. It enforces no limit.
func semFloorWorker(ctx context.Context, e *env, cfg semConfig, dir string) (semWorker, error) {
	conn, err := dial(ctx, e.servers, cfg.session, nil, e.dialer())
	if err != nil {
		return semWorker{}, err
	}
	leases := path.Join(dir, semaphore.LeasesDir)
	return semWorker{
		acquire: func(context.Context) (func(context.Context) error, error) {
			node, err := conn.Create(path.Join(leases, semaphore.LeaseName), nil, zk.FlagEphemeralSequential, worldACL)
			if err != nil {
				return nil, err
			}
			if _, _, err := conn.Children(leases); err != nil {
				return nil, err
			}
			return func(context.Context) error { return conn.Delete(node, -1) }, nil
		},
		close: conn.Close,
	}, nil
}

func (w semWorker) closer() func() { return w.close }

// holderCount is the bench's own count of the workers holding a lease.
type holderCount struct {
	inside     atomic.Int64
	peak       atomic.Int64
	violations atomic.Int64
}

// enter counts a holder in; an entry that finds max or more inside already
// is a violation.
func (h *holderCount) enter(max int) {
	n := h.inside.Add(1)
	for {
		p := h.peak.Load()
		if n <= p || h.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if n > int64(max) {
		h.violations.Add(1)
	}
}

func (h *holderCount) leave() { h.inside.Add(-1) }

// semPhaseResult is what one phase did.
type semPhaseResult struct {
	ops      int
	acquires []time.Duration
}

// semPhase runs iters acquire -> release cycles on every worker at once,
// for at most budget when budget > 0 (only completed cycles count then).
// The first error stops every worker.
func semPhase(ctx context.Context, ws []semWorker, count *holderCount, max, iters int, budget time.Duration) (semPhaseResult, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if budget > 0 {
		t := time.AfterFunc(budget, func() { cancel(errBudget) })
		defer t.Stop()
	}
	samples := make([][]time.Duration, len(ws))
	done := make([]int, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			var err error
			samples[i], done[i], err = semCycle(ctx, w, count, max, iters)
			if err != nil {
				cancel(fmt.Errorf("worker %d: %w", i, err))
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, errBudget) {
		return semPhaseResult{}, err
	}
	res := semPhaseResult{acquires: slices.Concat(samples...)}
	for _, n := range done {
		res.ops += n
	}
	return res, nil
}

// semCycle is one worker's loop: acquire, count itself in and out, release
// at once. It returns its acquire latencies and how many cycles it completed.
func semCycle(ctx context.Context, w semWorker, count *holderCount, max, iters int) ([]time.Duration, int, error) {
	samples := make([]time.Duration, 0, iters)
	for done := range iters {
		if err := ctx.Err(); err != nil {
			return samples, done, err
		}
		start := time.Now()
		release, err := w.acquire(ctx)
		if err != nil {
			return samples, done, fmt.Errorf("acquire: %w", err)
		}
		samples = append(samples, time.Since(start))
		count.enter(max)
		runtime.Gosched() // stay inside a little, so an overlap has a chance to show
		count.leave()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
		err = release(rctx)
		cancel()
		if err != nil {
			return samples, done, fmt.Errorf("release: %w", err)
		}
	}
	return samples, iters, nil
}

// leaseSampler lists a leases directory every sampleInterval on the admin
// session and keeps the most children it saw.
type leaseSampler struct {
	quit, done chan struct{}
	peak       int
}

// sampleInterval is how often the sampler lists leases/.
const sampleInterval = 20 * time.Millisecond

func sampleLeases(ctx context.Context, conn *zk.Conn, dir string) *leaseSampler {
	s := &leaseSampler{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(sampleInterval)
		defer t.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if kids, _, err := conn.Children(dir); err == nil {
				s.peak = max(s.peak, len(kids))
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the peak.
func (s *leaseSampler) stop() int {
	close(s.quit)
	<-s.done
	return s.peak
}
