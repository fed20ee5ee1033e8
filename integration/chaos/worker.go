package chaos

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Held is what a worker needs of a holding: its loss signal and its
// fencing token. Every recipe's holding fits (a mutex side, a lease, a
// term through TermHeld).
type Held interface {
	Lost() <-chan struct{}
	Token(ctx context.Context) (int64, error)
}

// Part is what every worker shares: who it is, where it records, and the
// random choices of its holdings. Workers of each recipe embed it.
type Part struct {
	Who      int
	Parts    int            // participants in the scenario
	Client   *client.Client // the participant's client (nil in unit tests)
	History  *History
	Store    *Store // nil: holdings do not write (shared holdings: leases, readers)
	Timeline *Timeline
	Seed     uint64
	Session  time.Duration // the participants' session timeout
	// LongUntil is when holds longer than calmHold must have ended: the
	// end of the fault phase (zero: never; see clipHold).
	LongUntil time.Time
	// NewClient starts another client for the participant, like Client
	// (its servers, namespace, session timeout and logger) and dialing
	// through the same fault link, wrapped by wrap when it is not nil: a
	// workload that restarts a participant (the queue's consumer kills)
	// makes each incarnation's client with it. Nil in unit tests.
	NewClient func(ctx context.Context, wrap func(client.Dialer) client.Dialer) (*client.Client, error)

	rng *rand.Rand
}

// Rand returns the worker's random source, seeded from Seed and Who. Only
// the worker's own goroutine may use it.
func (p *Part) Rand() *rand.Rand {
	if p.rng == nil {
		p.rng = rand.New(rand.NewPCG(p.Seed, uint64(p.Who)))
	}
	return p.rng
}

// Name is the participant's name in reports.
func (p *Part) Name() string { return PartName(p.Who) }

// AcquireTimeout draws a bound for one acquire: 2 to 3 session timeouts.
func (p *Part) AcquireTimeout() time.Duration {
	return 2*p.Session + time.Duration(p.Rand().Int64N(int64(p.Session)))
}

// HoldTime draws how long to hold: most holdings are short; one in three
// outlasts a session timeout, as a real job's does, so that faults hit
// holders mid-holding. Long holds end by LongUntil (see clipHold).
func (p *Part) HoldTime() time.Duration {
	r := p.Rand()
	d := time.Duration(20+r.Int64N(600)) * time.Millisecond
	if r.IntN(3) == 0 {
		d = p.Session + time.Duration(r.Int64N(int64(2*p.Session)))
	}
	if p.LongUntil.IsZero() {
		return d
	}
	return clipHold(d, time.Until(p.LongUntil))
}

// calmHold is the longest a worker holds once its LongUntil has passed:
// about the longest of HoldTime's short holds.
const calmHold = 500 * time.Millisecond

// clipHold cuts a drawn hold d, left before LongUntil: a hold longer than
// calmHold may last until LongUntil but not beyond it, and once it has
// passed it lasts calmHold at most.
//
// Why: every participant must be granted in the calm phase. With one
// holder at a time, a holder that releases queues again at the back, so
// the last of four is granted after the three holds before its own; with
// holds of up to three session timeouts that often takes longer than the
// calm phase, all the more when it begins with sessions expiring after a
// server fault. Holds longer than a session timeout are what let a late
// loss signal show as an overlap (a holder must still hold when its
// session expires), so they are kept for the fault phase and only cut
// short after it.
func clipHold(d, left time.Duration) time.Duration {
	if d <= calmHold {
		return d
	}
	return min(d, max(left, calmHold))
}

// Backoff sleeps a little after a failed acquire; it reports whether ctx
// is still live.
func (p *Part) Backoff(ctx context.Context) bool {
	return sleep(ctx, time.Duration(p.Rand().Int64N(int64(50*time.Millisecond))))
}

// Granted records that op's acquire returned h at instant at: it reads the
// token, tells the store, and starts noting h's loss signal. The returned
// stop ends that watch (call it once the holding is released or lost).
func (p *Part) Granted(ctx context.Context, op *Op, at time.Time, h Held) (token int64, stop func()) {
	token, err := h.Token(context.WithoutCancel(ctx))
	if err != nil {
		token = 0 // lost already: it will not write
	}
	op.Granted(at, token)
	if p.Client != nil {
		if sess := p.Client.Session(); sess != nil {
			op.InSession(sess.ID())
		}
	}
	if token > 0 && p.Store != nil {
		p.Store.Granted(token)
	}
	return token, p.watch(op, h)
}

// watch notes h's loss signal on op until stop is called.
func (p *Part) watch(op *Op, h Held) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-h.Lost():
			op.LostAt(time.Now())
		case <-quit:
		}
	}()
	return func() { close(quit); <-done }
}

// Hold holds for d, or until h's loss signal or ctx ends: every 30 ms it
// writes to the fenced store with token (when the part has a store and the
// token is known). It reports whether the holding was lost.
func (p *Part) Hold(ctx context.Context, op *Op, h Held, token int64, d time.Duration) (lost bool) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case <-h.Lost():
			op.LostAt(time.Now()) // keeps the watcher's instant if it came first
			return true
		default:
		}
		if token > 0 && p.Store != nil && !p.Store.Write(token) {
			p.Timeline.Add(p.Name(), "store REFUSED write with token "+itoa(token))
		}
		if !sleep(ctx, 30*time.Millisecond) {
			return false
		}
	}
	return false
}

// Release records the release of op's holding and calls release on a
// context of its own (10 s), noting an error on the timeline.
func (p *Part) Release(ctx context.Context, op *Op, stop func(), release func(context.Context) error) {
	op.Unlocking()
	stop()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := release(rctx); err != nil {
		p.Timeline.Add(p.Name(), "release: "+err.Error())
	}
}
