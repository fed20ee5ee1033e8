package shared

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Delays between reads that failed for another reason than the client's
// state (which the watcher hears of anyway).
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 5 * time.Second
)

// sleep waits d, or until Close (false) or the client closes (false).
func (b *Bytes) sleep(states <-chan client.StateChange, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-b.stopCtx.Done():
			return false
		case <-t.C:
			return true
		case _, ok := <-states:
			if !ok {
				return false
			}
		}
	}
}

// watch keeps the held value current until Close or the client closes: it
// reads the node again after every watch event, after every (re)connect,
// and after a failed read. w is the watch Start left on the node; the one
// in place when it returns is given up, so a closed value leaves no watch.
func (b *Bytes) watch(states <-chan client.StateChange, w *client.Watch) {
	defer func() {
		w.Stop()
		b.mu.Lock()
		b.closeEventsLocked()
		b.mu.Unlock()
	}()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var retryC <-chan time.Time
	delay := minRetry

	due := false // a read is due
	for {
		if due {
			next, err := b.refresh(w)
			switch {
			case err == nil:
				due, w, delay = false, next, minRetry
				retryC = nil
			case b.stopCtx.Err() != nil:
				return
			case errors.Is(err, zkrecipes.ErrClosed):
				b.setErr(fmt.Errorf("zkrecipes: %s %s: %w", b.what, b.path, err))
				return
			default:
				b.log.Warn(b.what+": reading the node failed; retrying", "path", b.path, "err", err, "in", delay)
				retry.Reset(delay)
				retryC = retry.C
				delay = min(2*delay, maxRetry)
			}
		}
		select {
		case <-b.stopCtx.Done():
			return
		case <-w.Events(): // fired or dropped; the watch is done either way
			w, due = nil, true
		case <-retryC:
			retryC = nil
		case sc, ok := <-states:
			if !ok { // the client closed
				b.setErr(fmt.Errorf("zkrecipes: %s %s: %w", b.what, b.path, errs.ClientClosed))
				return
			}
			if sc.State == client.StateConnected || sc.State == client.StateReconnected {
				due = true
			}
		}
	}
}

// refresh reads the node once. With no watch in place (w nil) it leaves a
// new one, a data watch or, when the node is missing, an existence watch;
// else a plain read suffices (the watch survives a reconnect to the same
// session, and fires with EventNotWatching when the session is gone). It
// returns the watch to wait on.
func (b *Bytes) refresh(w *client.Watch) (*client.Watch, error) {
	ctx := b.stopCtx
	if w != nil {
		data, st, err := b.cl.Get(ctx, b.path)
		if errors.Is(err, zk.ErrNoNode) {
			b.setDeleted()
			return w, nil
		}
		if err != nil {
			return w, err
		}
		b.observe(data, st, true)
		return w, nil
	}
	for {
		data, st, next, err := b.cl.GetWatch(ctx, b.path)
		if err == nil {
			b.observe(data, st, true)
			return next, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return nil, err
		}
		ok, _, next, err := b.cl.ExistsWatch(ctx, b.path)
		if err != nil {
			return nil, err
		}
		if !ok {
			b.setDeleted()
			return next, nil
		}
		// Created again between the two reads: read it, with a data watch.
		next.Stop()
	}
}

func (b *Bytes) setDeleted() {
	b.setErr(fmt.Errorf("zkrecipes: %s %s was deleted: %w", b.what, b.path, zk.ErrNoNode))
}
