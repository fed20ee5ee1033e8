package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// MutexWorker is one participant of a mutex scenario: it locks, writes to
// the fenced store while it believes it holds, and unlocks, again and again
// until its context ends.
type MutexWorker struct {
	Part
	M *mutex.Mutex
}

// Run runs the worker until ctx ends; it returns once its last holding is
// released (Unlock runs on a context of its own).
func (w *MutexWorker) Run(ctx context.Context) {
	for ctx.Err() == nil {
		lctx, cancel := context.WithTimeout(ctx, w.AcquireTimeout())
		op := w.History.Invoke(w.Who)
		err := w.M.Lock(lctx)
		at := time.Now()
		cancel()
		if err != nil {
			op.Failed(err)
			w.Backoff(ctx)
			continue
		}
		token, stop := w.Granted(ctx, op, at, w.M)
		w.Hold(ctx, op, w.M, token, w.HoldTime())
		w.Release(ctx, op, stop, w.M.Unlock)
	}
}

// WatchClient notes every state change of c on tl under name, and each
// session it lost or reconnected on h (when not nil), until the returned
// stop is called.
func WatchClient(tl *Timeline, h *History, name string, c *client.Client) (stop func()) {
	states, cancel := c.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range states {
			tl.AddAt(s.Time, name, fmt.Sprintf("client %s session=0x%x", s.State, s.SessionID))
			if h != nil {
				switch s.State {
				case client.StateLost:
					h.SessionLost(s.SessionID, s.Time)
				case client.StateReconnected:
					h.SessionReconnected(s.SessionID, s.Time)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}
