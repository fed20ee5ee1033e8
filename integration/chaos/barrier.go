package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
)

// The barrier workload's paths: the double barrier every participant
// enters and leaves in rounds, and the gate (a Barrier) participant p0
// sets and removes and every participant waits on before each round.
const (
	BarrierDir    = "/chaos/barrier"
	BarrierDouble = BarrierDir + "/double"
	BarrierGate   = BarrierDir + "/gate"
)

// BarrierWorker is one participant of the barrier scenario. It goes round
// after round: it waits on the gate (Wait) and 0 to 300 ms more, enters
// the double barrier of all the participants (Enter, bounded by AcquireTimeout, or one time in
// four by 20 to 420 ms, so that members withdraw often, openings
// included; a failed Enter is retried), stays in for 0 to 150 ms and
// leaves (Leave, bounded by four session timeouts). Participant p0 also runs the gate: set for 100 to 400
// ms, removed for 300 to 1000 ms, over and over, and removed for good when
// the worker stops.
//
// Each Enter is a holding of kind "enter" in the history (its token the
// opening's Round), granted when Enter returns nil and ended when Leave is
// called; so the calm phase asks every participant to pass the barrier,
// and half of the link faults hit a participant that is in. Every call is
// also logged, and once the last worker has stopped, the log is checked
// (see BarrierRun.check); what is wrong is a Problem.
type BarrierWorker struct {
	Part
	D    *barrier.Double
	Gate *barrier.Barrier
	run  *BarrierRun
}

// barrierCall is one logged call: an Enter, Leave, Close or Wait of a
// participant, or a Set or Remove of the gate.
type barrierCall struct {
	who           int
	kind          string
	invoke, ret   time.Time
	err           error
	round         int64
	pending, lost bool // err wraps ErrDeletePending, ErrLost
}

// BarrierRun is what one barrier scenario's workers share: the call log,
// and the count of workers still running (the last one checks the log).
// Make one with new(BarrierRun) per scenario and give its Start to the
// scenario.
type BarrierRun struct {
	mu      sync.Mutex
	calls   []barrierCall
	parts   int
	running int
	calmAt  time.Time // the end of the fault phase
}

// log records a call that returned now.
func (r *BarrierRun) log(who int, kind string, invoke time.Time, err error, round int64) {
	c := barrierCall{who: who, kind: kind, invoke: invoke, ret: time.Now(), err: err, round: round,
		pending: errors.Is(err, zkrecipes.ErrDeletePending), lost: errors.Is(err, zkrecipes.ErrLost)}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

// NewBarrierWorker makes participant p's worker on c.
func NewBarrierWorker(c *client.Client, p Part, run *BarrierRun) (*BarrierWorker, error) {
	d, err := barrier.NewDouble(c, BarrierDouble, max(p.Parts, 1))
	if err != nil {
		return nil, err
	}
	g, err := barrier.New(c, BarrierGate)
	if err != nil {
		return nil, err
	}
	return &BarrierWorker{Part: p, D: d, Gate: g, run: run}, nil
}

// Run goes round after round until ctx ends; then it closes the double
// barrier (and p0 removes the gate), and the last worker to stop checks
// the log.
func (w *BarrierWorker) Run(ctx context.Context) {
	var gate sync.WaitGroup
	if w.Who == 0 {
		gate.Add(1)
		go func() { defer gate.Done(); w.runGate(ctx) }()
	}
	for ctx.Err() == nil {
		w.round(ctx)
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	at := time.Now()
	err := w.D.Close(cctx)
	w.run.log(w.Who, "close", at, err, 0)
	if err != nil {
		w.Timeline.Add(w.Name(), "close: "+err.Error())
	}
	gate.Wait()
	_ = w.Gate.Close()
	w.run.mu.Lock()
	w.run.running--
	last := w.run.running == 0
	w.run.mu.Unlock()
	if last {
		for _, p := range w.run.check() {
			w.History.Problem(p.who, p.what)
		}
	}
}

// round is one round: the gate, then Enter (retried until it passes or
// ctx ends), a stay inside, and Leave.
func (w *BarrierWorker) round(ctx context.Context) {
	wctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	at := time.Now()
	err := w.Gate.Wait(wctx)
	cancel()
	w.run.log(w.Who, "wait", at, err, 0)
	if err != nil {
		w.Backoff(ctx)
		return
	}
	sleep(ctx, time.Duration(w.Rand().Int64N(int64(300*time.Millisecond)))) // arrivals spread out
	op := w.History.InvokeAs(w.Who, "enter", 1)
	timeout := w.AcquireTimeout()
	if w.Rand().IntN(4) == 0 {
		// An impatient member: it gives up (withdraws) often, at any
		// moment of a round's filling, opening included.
		timeout = time.Duration(20+w.Rand().Int64N(400)) * time.Millisecond
	}
	ectx, cancel := context.WithTimeout(ctx, timeout)
	at = time.Now()
	err = w.D.Enter(ectx)
	cancel()
	round := w.D.Round()
	w.run.log(w.Who, "enter", at, err, round)
	if err != nil {
		op.Failed(err)
		w.Backoff(ctx)
		return
	}
	op.Granted(time.Now(), round)
	sleep(ctx, time.Duration(w.Rand().Int64N(int64(150*time.Millisecond))))
	op.Unlocking()
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*w.Session)
	if ctx.Err() != nil {
		cancel()
		return // stopping: Close leaves
	}
	at = time.Now()
	err = w.D.Leave(lctx)
	cancel()
	w.run.log(w.Who, "leave", at, err, round)
	if err != nil {
		w.Timeline.Add(w.Name(), "leave: "+err.Error())
	} else {
		w.Timeline.Add(w.Name(), fmt.Sprintf("left round %d", round))
	}
}

// runGate sets and removes the gate until ctx ends, then removes it for
// good (on a context of its own, 10 s).
func (w *BarrierWorker) runGate(ctx context.Context) {
	rng := rand.New(rand.NewPCG(w.Seed, uint64(7000+w.Who)))
	call := func(kind string, f func(context.Context) error) {
		gctx, cancel := context.WithTimeout(ctx, 2*w.Session)
		defer cancel()
		at := time.Now()
		err := f(gctx)
		w.run.log(w.Who, kind, at, err, 0)
		w.Timeline.Add(w.Name(), fmt.Sprintf("gate %s: %v", kind, err))
	}
	for ctx.Err() == nil {
		call("set", w.Gate.Set)
		sleep(ctx, time.Duration(100+rng.Int64N(300))*time.Millisecond)
		call("remove", w.Gate.Remove)
		sleep(ctx, time.Duration(300+rng.Int64N(700))*time.Millisecond)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	at := time.Now()
	err := w.Gate.Remove(rctx)
	w.run.log(w.Who, "remove", at, err, 0)
	if err != nil {
		w.Timeline.Add(w.Name(), "gate: final remove: "+err.Error())
	}
}

// Start makes participant p's worker on c: the scenario's Start.
func (r *BarrierRun) Start(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
	w, err := NewBarrierWorker(c, p, r)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.parts, r.calmAt = p.Parts, p.LongUntil
	r.running++
	r.mu.Unlock()
	return w.Run, nil
}

func init() {
	register(Workload{
		Recipe: "barrier",
		Fresh: func() Workload {
			return Workload{
				Recipe:   "barrier",
				Capacity: Capacity{Units: MaxParts}, // members are in together: no grant can overlap
				Dirs:     []string{BarrierDir},
				Start:    new(BarrierRun).Start,
			}
		},
	})
}
