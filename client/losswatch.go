package client

import "github.com/go-zkrecipes/zkrecipes/internal/access"

// Loss watches (access.WatchLoss): a lock holding that has no goroutine of
// its own yet is told here, by whoever closes the connection's
// Disconnected channel or ends the session, that its holding may be gone.
// Its function runs on that goroutine, with c.mu held.

// watchLoss registers w, unless what it waits for has happened
// already (then it reports false and does not call w.F).
func (c *Client) watchLoss(w *access.LossWatch) bool {
	sess, _ := w.Sess.(*Session)
	c.mu.Lock()
	defer c.mu.Unlock()
	if (w.Disc != nil && isClosedChan(w.Disc)) || sess == nil || sess.ended() {
		return false
	}
	w.Slot = len(c.lossWatches)
	c.lossWatches = append(c.lossWatches, w)
	return true
}

// unwatchLoss removes w; it reports whether w was still registered (its F
// not called).
func (c *Client) unwatchLoss(w *access.LossWatch) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.removeLossLocked(w)
}

func (c *Client) removeLossLocked(w *access.LossWatch) bool {
	i := w.Slot
	if i < 0 || i >= len(c.lossWatches) || c.lossWatches[i] != w {
		return false
	}
	last := len(c.lossWatches) - 1
	c.lossWatches[i] = c.lossWatches[last]
	c.lossWatches[i].Slot = i
	c.lossWatches[last] = nil
	c.lossWatches = c.lossWatches[:last]
	w.Slot = -1
	return true
}

// fireLossLocked calls, and removes, every loss watch on a Disconnected
// channel (when sess is nil: the connection is lost) or on sess (it ended).
func (c *Client) fireLossLocked(sess *Session) {
	for i := 0; i < len(c.lossWatches); {
		w := c.lossWatches[i]
		if (sess == nil && w.Disc != nil) || (sess != nil && w.Sess == any(sess)) {
			c.removeLossLocked(w) // the last one moves to slot i
			w.F(w.Arg)
			continue
		}
		i++
	}
}
