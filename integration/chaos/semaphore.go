package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// The limits a semaphore scenario's shared count moves between.
const (
	SemaphoreLimitLow  = 2
	SemaphoreLimitHigh = 3
)

// SemaphoreCapacity is the capacity the checks hold a semaphore scenario
// to: one unit per lease, as many units as the HIGHER limit. Lowering the
// count revokes no lease, and an acquirer may grant on the count it last
// saw, which may be the higher one still; but no acquirer ever sees a limit
// above SemaphoreLimitHigh, so more leases than that are never held at once.
var SemaphoreCapacity = Capacity{Units: SemaphoreLimitHigh}

// SemaphoreWorker is one participant of a semaphore scenario. Each turn it
// acquires one lease (Acquire) or one or two at once (AcquireN), records
// each lease as a holding of its own of kind "lease" (those of one AcquireN
// share its invoke and return), holds them all for one drawn time or until
// the first of them is lost, and releases each. Leases do not write to the
// fenced store: shared holdings have no order to fence. Participant 0 also
// moves the limit between SemaphoreLimitLow and SemaphoreLimitHigh every
// few seconds through the shared count.
type SemaphoreWorker struct {
	Part
	S     *semaphore.Semaphore
	Count *shared.Count // the limit, started; Run closes it before it returns
}

// NewSemaphoreWorker makes participant p's worker on c: a count at
// countPath (seeded with SemaphoreLimitHigh, started here) and a semaphore
// at semPath taking its limit from it. The count's path must be outside the
// scenario's Dirs: its node is persistent. opts go to the semaphore.
func NewSemaphoreWorker(ctx context.Context, c *client.Client, p Part, semPath, countPath string, opts ...semaphore.Option) (*SemaphoreWorker, error) {
	count, err := shared.NewCount(c, countPath, SemaphoreLimitHigh)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := count.Start(sctx); err != nil {
		return nil, err
	}
	s, err := semaphore.NewWithCount(c, semPath, count, opts...)
	if err != nil {
		_ = count.Close()
		return nil, err
	}
	return &SemaphoreWorker{Part: p, S: s, Count: count}, nil
}

// Run runs the worker (and, for participant 0, the limit changer) until
// ctx ends; it returns once its last leases are released, the changer has
// stopped and the count is closed.
func (w *SemaphoreWorker) Run(ctx context.Context) {
	defer func() { _ = w.Count.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	if w.Who == 0 {
		wg.Add(1)
		go func() { defer wg.Done(); w.changeLimit(ctx) }()
	}
	for ctx.Err() == nil {
		w.turn(ctx)
	}
}

// changeLimit sets the count to the low and the high limit in turn, every
// 2 to 4 s, until the fault phase is over (LongUntil); then it sets the
// high limit back for the calm phase (retrying until it is set or ctx
// ends), so that every participant can be granted. Each set is recorded in
// the history, so that the checks follow the limit (Capacity.LimitAt). It
// draws from a random source of its own (Rand is the worker goroutine's).
func (w *SemaphoreWorker) changeLimit(ctx context.Context) {
	rng := rand.New(rand.NewPCG(w.Seed, 0x5e3a))
	limits := [2]int32{SemaphoreLimitLow, SemaphoreLimitHigh}
	calm := false
	for i := 0; ; i++ {
		if !calm && !w.LongUntil.IsZero() && time.Now().After(w.LongUntil) {
			calm = true
		}
		gap := 2*time.Second + time.Duration(rng.Int64N(int64(2*time.Second)))
		if calm {
			gap = 100 * time.Millisecond
		}
		if !sleep(ctx, gap) {
			return
		}
		n := limits[i%2]
		if calm {
			n = SemaphoreLimitHigh
		}
		if w.set(ctx, n) && calm {
			return
		}
	}
}

// set sets the count to n, records it, and reports whether it was set.
func (w *SemaphoreWorker) set(ctx context.Context, n int32) bool {
	sctx, cancel := context.WithTimeout(ctx, w.Session)
	defer cancel()
	invoke := time.Now()
	err := w.Count.Set(sctx, n)
	w.History.LimitSet(invoke, time.Now(), int(n), err == nil)
	if err != nil {
		w.Timeline.Add(w.Name(), fmt.Sprintf("limit set to %d failed: %v", n, err))
		return false
	}
	w.Timeline.Add(w.Name(), fmt.Sprintf("limit set to %d", n))
	return true
}

// turn is one acquire, hold and release.
func (w *SemaphoreWorker) turn(ctx context.Context) {
	r := w.Rand()
	n := 0 // Acquire
	if r.IntN(2) == 0 {
		n = 1 + r.IntN(2) // AcquireN(1) or AcquireN(2)
	}
	lctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	op := w.History.InvokeAs(w.Who, "lease", 1)
	var leases []*semaphore.Lease
	var err error
	if n == 0 {
		var l *semaphore.Lease
		if l, err = w.S.Acquire(lctx); err == nil {
			leases = []*semaphore.Lease{l}
		}
	} else {
		leases, err = w.S.AcquireN(lctx, n)
	}
	at := time.Now()
	cancel()
	if err == nil && len(leases) == 0 {
		err = fmt.Errorf("acquire of %d leases returned none", max(n, 1))
	}
	if err != nil {
		op.Failed(err)
		w.Backoff(ctx)
		return
	}
	ops := make([]*Op, len(leases))
	stops := make([]func(), len(leases))
	_, stops[0] = w.Granted(ctx, op, at, leases[0])
	ops[0] = op
	for i := 1; i < len(leases); i++ {
		token, terr := leases[i].Token(context.WithoutCancel(ctx))
		if terr != nil {
			token = 0 // lost already
		}
		ops[i] = op.Also(token)
		stops[i] = w.watch(ops[i], leases[i])
	}
	w.hold(ctx, ops, leases, w.HoldTime())
	for i, l := range leases {
		w.Release(ctx, ops[i], stops[i], l.Release)
	}
}

// hold holds leases for d, or until ctx ends or one of them is lost: a
// lost lease's holding ends at its loss signal, the others' at their
// release, which follows at once.
func (w *SemaphoreWorker) hold(ctx context.Context, ops []*Op, leases []*semaphore.Lease, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		lost := false
		for i, l := range leases {
			select {
			case <-l.Lost():
				ops[i].LostAt(time.Now()) // keeps the watcher's instant if it came first
				lost = true
			default:
			}
		}
		if lost || !sleep(ctx, 30*time.Millisecond) {
			return
		}
	}
}

func init() {
	register(Workload{
		Recipe:   "semaphore",
		Capacity: SemaphoreCapacity,
		Dirs:     []string{"/chaos/semaphore"},
		Start: func(ctx context.Context, c *client.Client, p Part) (func(context.Context), error) {
			w, err := NewSemaphoreWorker(ctx, c, p, "/chaos/semaphore", "/chaos/semaphore-limit")
			if err != nil {
				return nil, err
			}
			return w.Run, nil
		},
	})
}
