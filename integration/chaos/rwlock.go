package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// The weights of a read/write lock's holdings: a writer takes every unit of
// RWLockCapacity, a reader one, so the checks allow one writer or many
// readers (up to WriterWeight, more than MaxParts).
const (
	ReaderWeight = 1
	WriterWeight = 64
)

// RWLockCapacity is the capacity of a read/write lock: one writer or many
// readers, and a writer may take its read lock before it releases its
// write lock (a downgrade).
var RWLockCapacity = Capacity{Units: WriterWeight, Downgrade: true}

// RWLockWorker is one participant of a read/write lock scenario. Each turn
// it draws one of three: a read holding, a write holding, or (half the
// turns) a write holding downgraded to a read holding (by RLock with the
// write holding's context, then Unlock of the write; or by Downgrade).
// Only write holdings write to the fenced store; every grant, read or
// write, tells the store its token, so a stale writer that writes while a
// reader holds is counted too.
type RWLockWorker struct {
	Part
	RW *rwlock.RWMutex

	downgrades atomic.Int64 // reads granted by a downgrade
	mismatches atomic.Int64 // of those, reads whose token was not the writer's
}

// Downgrades returns how many read holdings were granted by a downgrade.
func (w *RWLockWorker) Downgrades() int { return int(w.downgrades.Load()) }

// Mismatches returns how many downgraded read holdings had a token other
// than their write holding's (the package promises the same token).
func (w *RWLockWorker) Mismatches() int { return int(w.mismatches.Load()) }

// Run runs the worker until ctx ends; it returns once its last holding is
// released (releases run on a context of their own).
func (w *RWLockWorker) Run(ctx context.Context) {
	for ctx.Err() == nil {
		switch w.Rand().IntN(4) {
		case 0:
			w.read(ctx)
		case 1:
			w.write(ctx, false)
		default: // half the turns: downgrades are the subtle part
			w.write(ctx, true)
		}
	}
}

// acquire locks side m on a context bounded by AcquireTimeout, recording a
// holding of kind and weight. It reports the op and the grant instant, or
// false when the lock failed (after a backoff).
func (w *RWLockWorker) acquire(ctx context.Context, kind string, weight int, m *mutex.Mutex) (*Op, time.Time, bool) {
	lctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	defer cancel()
	op := w.History.InvokeAs(w.Who, kind, weight)
	err := m.Lock(lctx)
	at := time.Now()
	if err != nil {
		op.Failed(err)
		w.Backoff(ctx)
		return nil, at, false
	}
	return op, at, true
}

// read takes the read lock, holds it without writing, and releases it.
func (w *RWLockWorker) read(ctx context.Context) {
	rm := w.RW.ReadLock()
	op, at, ok := w.acquire(ctx, "read", ReaderWeight, rm)
	if !ok {
		return
	}
	_, stop := w.Granted(ctx, op, at, rm)
	w.Hold(ctx, op, rm, 0, w.HoldTime())
	w.Release(ctx, op, stop, rm.Unlock)
}

// write takes the write lock and holds it, writing to the store; then,
// when downgrade is set and the holding was not lost, it downgrades it to
// a read holding (one of two ways, drawn), else it releases it. A
// downgrade's write and read holdings share one drawn hold time (a third
// and two thirds), so that it keeps writers out no longer than a write.
func (w *RWLockWorker) write(ctx context.Context, downgrade bool) {
	wm := w.RW.WriteLock()
	op, at, ok := w.acquire(ctx, "write", WriterWeight, wm)
	if !ok {
		return
	}
	token, stop := w.Granted(ctx, op, at, wm)
	d := w.HoldTime()
	if downgrade {
		d /= 3
	}
	lost := w.Hold(ctx, op, wm, token, d)
	switch {
	case lost || !downgrade || ctx.Err() != nil:
		w.Release(ctx, op, stop, wm.Unlock)
	case w.Rand().IntN(2) == 0:
		w.readUnderWrite(ctx, op, token, stop, 2*d)
	default:
		w.downgrade(ctx, op, token, stop, 2*d)
	}
}

// readUnderWrite is a downgrade spelled as Curator spells it: RLock with
// the write holding's context takes the read lock at once beside the write
// lock (the history shows the participant holding both, which Capacity's
// Downgrade allows); then the write is released, and the read held and
// released after d. wop is the write holding, wtoken its token and
// wstop its watch.
func (w *RWLockWorker) readUnderWrite(ctx context.Context, wop *Op, wtoken int64, wstop func(), d time.Duration) {
	wm, rm := w.RW.WriteLock(), w.RW.ReadLock()
	hctx, cancelHold := wm.Context(ctx) // carries the write holding
	lctx, cancel := context.WithTimeout(hctx, w.AcquireTimeout())
	op := w.History.InvokeAs(w.Who, "read", ReaderWeight)
	err := w.RW.RLock(lctx)
	at := time.Now()
	cancel()
	cancelHold()
	if err != nil {
		op.Failed(err)
		w.Release(ctx, wop, wstop, wm.Unlock)
		return
	}
	token, stop := w.Granted(ctx, op, at, rm)
	w.checkToken(wtoken, token)
	w.Release(ctx, wop, wstop, wm.Unlock)
	w.Hold(ctx, op, rm, 0, d)
	w.Release(ctx, op, stop, rm.Unlock)
}

// downgrade turns the write holding into a read holding with Downgrade,
// which releases the write node at some instant of the call, after the
// read node is made: so the history ends the write holding as the call
// begins and grants the read as it returns (porcupine may order the read
// first; Overlaps then sees the participant holding nothing for the call's
// span, which is lenient, never wrong). If the call fails, the write
// holding is kept as it was, and is released at once; else the read is
// held for d.
func (w *RWLockWorker) downgrade(ctx context.Context, wop *Op, wtoken int64, wstop func(), d time.Duration) {
	rm := w.RW.ReadLock()
	op := w.History.InvokeAs(w.Who, "read", ReaderWeight)
	wop.Unlocking()
	wstop()
	dctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
	err := w.RW.Downgrade(dctx)
	at := time.Now()
	cancel()
	if err != nil {
		op.Failed(err)
		uctx, cancelU := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancelU()
		if uerr := w.RW.Unlock(uctx); uerr != nil && !errors.Is(uerr, zkrecipes.ErrNotHeld) {
			w.Timeline.Add(w.Name(), "release: "+uerr.Error())
		}
		return
	}
	token, stop := w.Granted(ctx, op, at, rm)
	w.checkToken(wtoken, token)
	w.Hold(ctx, op, rm, 0, d)
	w.Release(ctx, op, stop, rm.Unlock)
}

// checkToken counts a downgrade, and a mismatch when its read holding's
// token is not its write holding's (either 0: unknown, lost already).
func (w *RWLockWorker) checkToken(wtoken, rtoken int64) {
	w.downgrades.Add(1)
	if wtoken > 0 && rtoken > 0 && wtoken != rtoken {
		w.mismatches.Add(1)
		w.Timeline.Add(w.Name(), fmt.Sprintf("DOWNGRADE MISMATCH: read token %d, write token %d", rtoken, wtoken))
	}
}

func init() {
	register(Workload{
		Recipe:   "rwlock",
		Capacity: RWLockCapacity,
		Fenced:   true,
		Dirs:     []string{"/chaos/rwlock"},
		Start: func(_ context.Context, c *client.Client, p Part) (func(context.Context), error) {
			rw, err := rwlock.New(c, "/chaos/rwlock")
			if err != nil {
				return nil, err
			}
			w := &RWLockWorker{Part: p, RW: rw}
			return w.Run, nil
		},
	})
}
