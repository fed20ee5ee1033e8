package chaos

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// TermHeld is an election term as a Held: its loss signal is the term's
// context ending (whatever the cause: a suspension, a lost session, the
// node gone, Interrupt, Close), its token the term's (the leader node's
// creation zxid, which grows strictly from one leader's node to the next).
type TermHeld struct{ T *election.Term }

// Lost is the term's Done.
func (h TermHeld) Lost() <-chan struct{} { return h.T.Done() }

// Token is the term's token; it is known even once the term has ended.
func (h TermHeld) Token(context.Context) (int64, error) { return h.T.Token(), nil }

// LatchWorker is one participant of a leader latch scenario: it starts a
// latch, awaits its term, writes to the fenced store while the term lasts
// and steps down, again and again until its context ends. It steps down by
// closing the latch (then starts a new one), or, one time in three, by
// interrupting the term, keeping the latch, which queues again; after a
// term lost to a fault, it keeps the latch one time in three and awaits
// the latch's next term (on the same node when the session survived).
type LatchWorker struct {
	Part
	C    *client.Client
	Path string
}

// Run runs the worker until ctx ends; it returns once its last latch is
// closed (Close runs on a context of its own).
func (w *LatchWorker) Run(ctx context.Context) {
	for ctx.Err() == nil {
		l, err := election.NewLatch(w.C, w.Path, election.WithID(w.Name()))
		if err != nil {
			w.Timeline.Add(w.Name(), "new latch: "+err.Error())
			return
		}
		w.campaign(ctx, l)
	}
}

// campaign leads term after term on latch l, recording each as a holding
// of kind "term", until it closes l: on a failed Start or Await, on ctx's
// end, or to step down.
func (w *LatchWorker) campaign(ctx context.Context, l *election.Latch) {
	started := false
	for {
		actx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
		op := w.History.InvokeAs(w.Who, "term", 1)
		var t *election.Term
		var err error
		if !started {
			err = l.Start(actx)
			started = err == nil
		}
		if err == nil {
			t, err = l.Await(actx)
		}
		at := time.Now()
		cancel()
		if err != nil {
			op.Failed(err)
			w.close(ctx, l)
			w.Backoff(ctx)
			return
		}
		h := TermHeld{t}
		token, stop := w.Granted(ctx, op, at, h)
		lost := w.Hold(ctx, op, h, token, w.HoldTime())
		keep := ctx.Err() == nil && w.Rand().IntN(3) == 0
		switch {
		case !keep:
			w.Release(ctx, op, stop, l.Close)
			return
		case lost:
			stop() // ended at its loss; the latch campaigns on
			w.Timeline.Add(w.Name(), "keeps the latch after the loss")
		default:
			w.Release(ctx, op, stop, func(context.Context) error { t.Interrupt(); return nil })
			w.Timeline.Add(w.Name(), "interrupted the term; keeps the latch")
			// The term's context ends once the latch has seen the
			// interrupt; until then Await would return this term again.
			select {
			case <-t.Done():
			case <-ctx.Done():
			}
		}
	}
}

// close closes l, not as a release (nothing was held), noting an error.
func (w *LatchWorker) close(ctx context.Context, l *election.Latch) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := l.Close(cctx); err != nil {
		w.Timeline.Add(w.Name(), "latch close: "+err.Error())
	}
}

// RunWorker is one participant of a leader loop scenario: one call of
// election.Run for the worker's whole life, whose lead function writes to
// the fenced store while its term lasts and returns after a drawn hold, so
// that Run deletes the node and campaigns again.
//
// Run campaigns on its own, so the worker records each acquire's invoke
// when it calls Run and when a lead function returns (before Run deletes
// the node and campaigns again), and its grant when lead is called.
type RunWorker struct {
	Part
	C    *client.Client
	Path string
}

// Run runs the worker until ctx ends; it returns once election.Run has
// returned.
//
// election.Run is given a context of its own, ended once ctx has ended and
// no lead function runs: a term that ctx's end interrupts is then recorded
// as released, not as lost to a fault.
func (w *RunWorker) Run(ctx context.Context) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	var mu sync.Mutex
	leading := false
	defer context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !leading {
			cancel()
		}
	})()
	var op *Op // the acquire under way: Run campaigns
	lead := func(_ context.Context, t *election.Term) error {
		at := time.Now()
		mu.Lock()
		leading = true
		stopping := ctx.Err() != nil
		mu.Unlock()
		if stopping {
			// Granted as the worker stopped: the term's context may be
			// ended by cancel already; release at once.
			op.Granted(at, t.Token())
			op.Unlocking()
		} else {
			h := TermHeld{t}
			token, stop := w.Granted(ctx, op, at, h)
			w.Hold(ctx, op, h, token, w.HoldTime())
			w.Release(ctx, op, stop, func(context.Context) error { return nil }) // Run deletes the node
		}
		op = nil
		mu.Lock()
		leading = false
		stopping = ctx.Err() != nil
		mu.Unlock()
		if stopping {
			cancel()
			return nil
		}
		op = w.History.InvokeAs(w.Who, "term", 1)
		return nil
	}
	for ctx.Err() == nil {
		op = w.History.InvokeAs(w.Who, "term", 1)
		err := election.Run(rctx, w.C, w.Path, lead, election.WithID(w.Name()))
		if op != nil {
			op.Failed(err) // Run returned without calling lead: not granted
			op = nil
		}
		if ctx.Err() == nil {
			w.Timeline.Add(w.Name(), "election.Run returned: "+err.Error())
			if errors.Is(err, zkrecipes.ErrInvalidArgument) || errors.Is(err, zkrecipes.ErrInvalidPath) {
				return
			}
			w.Backoff(ctx)
		}
	}
}

// StartLatch returns a Scenario's Start that makes LatchWorkers on path.
func StartLatch(path string) func(context.Context, *client.Client, Part) (func(context.Context), error) {
	return func(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
		if _, err := election.NewLatch(c, path); err != nil { // checks c and path; no I/O
			return nil, err
		}
		w := &LatchWorker{Part: p, C: c, Path: path}
		return w.Run, nil
	}
}

// StartRun returns a Scenario's Start that makes RunWorkers on path.
func StartRun(path string) func(context.Context, *client.Client, Part) (func(context.Context), error) {
	return func(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
		if _, err := election.NewLatch(c, path); err != nil { // Run's checks of c and path; no I/O
			return nil, err
		}
		w := &RunWorker{Part: p, C: c, Path: path}
		return w.Run, nil
	}
}

func init() {
	register(Workload{Recipe: "latch", Capacity: OneHolder, Fenced: true, Dirs: []string{"/chaos/latch"}, Start: StartLatch("/chaos/latch")})
	register(Workload{Recipe: "run", Capacity: OneHolder, Fenced: true, Dirs: []string{"/chaos/run"}, Start: StartRun("/chaos/run")})
}
