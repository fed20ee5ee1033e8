package chaos

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// MutexWorker is one participant of a mutex scenario: it locks, writes to
// the fenced store while it believes it holds, and unlocks, again and again
// until its context ends.
type MutexWorker struct {
	Who      int
	M        *mutex.Mutex
	History  *History
	Store    *Store
	Timeline *Timeline
	Seed     uint64
	Session  time.Duration // bounds each Lock (2 to 3 session timeouts)
}

// Run runs the worker until ctx ends; it returns once its last holding is
// released (Unlock runs on a context of its own).
func (w *MutexWorker) Run(ctx context.Context) {
	rng := rand.New(rand.NewPCG(w.Seed, uint64(w.Who)))
	name := PartName(w.Who)
	for ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, 2*w.Session+time.Duration(rng.Int64N(int64(w.Session))))
		op := w.History.Invoke(w.Who)
		err := w.M.Lock(lctx)
		at := time.Now()
		cancel()
		if err != nil {
			op.Failed(err)
			sleep(ctx, time.Duration(rng.Int64N(int64(50*time.Millisecond))))
			continue
		}
		token, terr := w.M.Token(context.WithoutCancel(ctx))
		if terr != nil {
			token = 0 // lost already: it will not write
		}
		op.Granted(at, token)
		if token > 0 {
			w.Store.Granted(token)
		}
		stop, watched := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(watched)
			select {
			case <-w.M.Lost():
				op.LostAt(time.Now())
			case <-stop:
			}
		}()
		// Most holdings are short; one in three outlasts a session timeout,
		// as a real job's does, so that faults hit holders mid-holding.
		hold := time.Duration(20+rng.Int64N(600)) * time.Millisecond
		if rng.IntN(3) == 0 {
			hold = w.Session + time.Duration(rng.Int64N(int64(2*w.Session)))
		}
		deadline := time.Now().Add(hold)
	writes:
		for time.Now().Before(deadline) {
			select {
			case <-w.M.Lost():
				op.LostAt(time.Now()) // keeps the watcher's instant if it came first
				break writes
			default:
			}
			if token > 0 && !w.Store.Write(token) {
				w.Timeline.Add(name, "store REFUSED write with token "+itoa(token))
			}
			if !sleep(ctx, 30*time.Millisecond) {
				break
			}
		}
		op.Unlocking()
		close(stop)
		<-watched
		uctx, ucancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if err := w.M.Unlock(uctx); err != nil {
			w.Timeline.Add(name, "Unlock: "+err.Error())
		}
		ucancel()
	}
}

// WatchClient notes every state change of c on tl under name until the
// returned stop is called.
func WatchClient(tl *Timeline, name string, c *client.Client) (stop func()) {
	states, cancel := c.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range states {
			tl.AddAt(s.Time, name, "client "+s.State.String())
		}
	}()
	return func() { cancel(); <-done }
}
