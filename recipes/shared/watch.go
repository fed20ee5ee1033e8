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

// watch keeps the held value current until Close or the client closes: it
// reads the node again after every watch event, after every (re)connect,
// and after a failed read. w is the watch Start left on the node.
func (c *Count) watch(states <-chan client.StateChange, w <-chan zk.Event) {
	defer c.wg.Done()
	defer func() {
		c.mu.Lock()
		c.closeChangesLocked()
		c.mu.Unlock()
	}()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var retryC <-chan time.Time
	delay := minRetry

	due := false // a read is due
	for {
		if due {
			next, err := c.refresh(w)
			switch {
			case err == nil:
				due, w, delay = false, next, minRetry
				retryC = nil
			case c.stopCtx.Err() != nil:
				return
			case errors.Is(err, zkrecipes.ErrClosed):
				c.setErr(fmt.Errorf("zkrecipes: count %s: %w", c.path, err))
				return
			default:
				c.log.Warn("shared count: reading the count failed; retrying", "path", c.path, "err", err, "in", delay)
				retry.Reset(delay)
				retryC = retry.C
				delay = min(2*delay, maxRetry)
			}
		}
		select {
		case <-c.stopCtx.Done():
			return
		case <-w: // fired or dropped; the channel is done either way
			w, due = nil, true
		case <-retryC:
			retryC = nil
		case sc, ok := <-states:
			if !ok { // the client closed
				c.setErr(fmt.Errorf("zkrecipes: count %s: %w", c.path, errs.ClientClosed))
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
func (c *Count) refresh(w <-chan zk.Event) (<-chan zk.Event, error) {
	ctx := c.stopCtx
	if w != nil {
		data, st, err := c.cl.Get(ctx, c.path)
		if errors.Is(err, zk.ErrNoNode) {
			c.setDeleted()
			return w, nil
		}
		if err != nil {
			return w, err
		}
		c.observe(data, st, true)
		return w, nil
	}
	for {
		data, st, next, err := c.cl.GetW(ctx, c.path)
		if err == nil {
			c.observe(data, st, true)
			return next, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return nil, err
		}
		ok, _, next, err := c.cl.ExistsW(ctx, c.path)
		if err != nil {
			return nil, err
		}
		if !ok {
			c.setDeleted()
			return next, nil
		}
		// Created again between the two reads: read it, with a data watch.
		// The existence watch just set fires on the next change, harmlessly.
	}
}

func (c *Count) setDeleted() {
	c.setErr(fmt.Errorf("zkrecipes: count %s was deleted: %w", c.path, zk.ErrNoNode))
}
