package client

import (
	"context"
	"log/slog"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zookeeper/zk"
)

// The connection-event state machine: the connection's session events turned
// into Curator's four states, local expiry, and the channels recipes wait on.

// onEvent is the connection's event callback (zxid: a notification's, or
// -1). It runs on the connection's own goroutine, so it only updates state
// and queues notifications: no I/O.
func (c *Client) onEvent(gen uint64, ref *connRef, ev zk.Event, zxid int64) {
	if ev.Type != zk.EventSession {
		c.onNodeEvent(gen, ev, zxid)
		return
	}
	var sid int64
	var negotiated time.Duration
	if ev.State == zk.StateHasSession {
		<-ref.ready
		sid = ref.conn.SessionID() // exact: set just before this event
		negotiated = ref.conn.NegotiatedTimeout()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || gen != c.gen {
		return
	}
	switch ev.State {
	case zk.StateHasSession:
		if negotiated > 0 {
			c.negotiated = negotiated
		}
		c.onSessionLocked(sid)
		if c.sess != nil && c.sess.id == sid && !c.sess.ended() {
			c.markUpLocked()
		}
	case zk.StateDisconnected:
		if c.sess != nil && !c.sess.ended() && c.state != StateSuspended {
			c.publishLocked(StateSuspended, c.sess.id)
			c.startExpiryLocked(gen, c.sess)
		}
	case zk.StateExpired:
		if c.sess != nil && !c.sess.ended() {
			c.log.Warn("zookeeper expired the session", "session", sessionHex(c.sess.id))
			c.loseLocked()
		}
	case zk.StateAuthFailed:
		c.log.Error("zookeeper authentication failed")
	}
}

func (c *Client) onSessionLocked(sid int64) {
	c.stopExpiryLocked()
	switch {
	case c.sess == nil:
		c.setSessionLocked(newSession(sid))
		c.publishLocked(StateConnected, sid)
		close(c.firstSess)
	case c.sess.id == sid && !c.sess.ended():
		if c.state == StateSuspended {
			c.publishLocked(StateReconnected, sid)
			c.resyncLocked(false)
		}
	default:
		if !c.sess.ended() { // a new session without an expiry event: the old one is gone
			c.loseLocked()
		}
		c.setSessionLocked(newSession(sid))
		c.publishLocked(StateReconnected, sid)
		c.resyncLocked(true)
	}
}

func (c *Client) setSessionLocked(s *Session) {
	c.sess = s
	close(c.sessChanged)
	c.sessChanged = make(chan struct{})
}

func (c *Client) loseLocked() {
	c.stopExpiryLocked()
	c.sess.end(zkrecipes.ErrSessionLost)
	c.publishLocked(StateLost, c.sess.id)
	close(c.sessChanged)
	c.sessChanged = make(chan struct{})
}

func (c *Client) publishLocked(s State, sid int64) {
	prev, since := c.state, c.stateSince
	c.state, c.stateSince = s, time.Now()
	if h := c.cfg.hooks; h != nil && h.State != nil {
		in := time.Duration(0)
		if !since.IsZero() {
			in = c.stateSince.Sub(since)
		}
		h.State(StateHook{State: s, Previous: prev, InPrevious: in, SessionID: sid})
	}
	switch s {
	case StateSuspended, StateLost:
		c.markDisconnectedLocked()
		if isClosedChan(c.upCh) {
			c.upCh = make(chan struct{})
		}
	case StateConnected, StateReconnected:
		if isClosedChan(c.discCh) {
			c.discCh = make(chan struct{})
		}
	}
	ev := StateChange{State: s, SessionID: sid, Time: time.Now()}
	level := slog.LevelDebug
	if s == StateSuspended || s == StateLost {
		level = slog.LevelWarn // an operator paged at night wants these
	}
	c.log.Log(context.Background(), level, "zookeeper connection state", "state", s.String(), "session", sessionHex(sid))
	for sub := range c.subs {
		sub.Push(ev)
	}
}

// startExpiryLocked arms the local expiry: Curator's rule that a client which
// has been Suspended for a whole (negotiated) session timeout must assume the
// server has expired its session, so that a partitioned process learns it
// even though no server can tell it.
func (c *Client) startExpiryLocked(gen uint64, s *Session) {
	c.stopExpiryLocked()
	c.expiry = time.AfterFunc(c.sessionTimeoutLocked(), func() { c.expireLocally(gen, s) })
}

func (c *Client) stopExpiryLocked() {
	if c.expiry != nil {
		c.expiry.Stop()
		c.expiry = nil
	}
}

func (c *Client) expireLocally(gen uint64, s *Session) {
	c.mu.Lock()
	if c.closed || c.gen != gen || c.sess != s || s.ended() || c.state != StateSuspended {
		c.mu.Unlock()
		return
	}
	c.log.Warn("no connection for a whole session timeout: giving the session up",
		"session", sessionHex(s.id), "timeout", c.sessionTimeoutLocked())
	c.loseLocked()
	// The old connection could still resume the dead session if the server
	// had not expired it yet: replace it, so that what we declared lost stays lost.
	old := c.conn
	c.conn = nil
	next := c.nextGenLocked()
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		if old != nil {
			old.Close()
		}
		c.redial(next)
	}()
}

// redialFloor bounds how fast redial retries, whatever the retry policy says.
const redialFloor = 100 * time.Millisecond

// Disconnected returns a channel that is closed the next time the connection
// is lost (Suspended or Lost), or by Close. While the client is disconnected,
// or before its first session, the channel returned is already closed. A lock
// holder takes it before the listing that grants it the lock, so it cannot
// miss a suspension that happened after that listing.
func (c *Client) Disconnected() <-chan struct{} {
	if c == nil || c.closedCh == nil {
		return closedChan()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.discCh
}

// connectedSignal returns a channel that is closed while (or as soon as) the
// client has a session with a live connection.
func (c *Client) connectedSignal() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.upCh
}

// markUpLocked opens the client to requests: the session's connection is up.
func (c *Client) markUpLocked() {
	if !isClosedChan(c.upCh) {
		close(c.upCh)
	}
}

func (c *Client) markDisconnectedLocked() {
	if !isClosedChan(c.discCh) {
		close(c.discCh)
	}
}
