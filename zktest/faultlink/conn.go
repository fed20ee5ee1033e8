package faultlink

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// proxyConn is one connection dialed through a Link.
type proxyConn struct {
	net.Conn

	link *Link
	addr string // the address dialed
	seq  int64  // the link's dial count when it was dialed

	// blackholed is set by Link.Blackhole and never cleared: Restore closes
	// the connection instead.
	blackholed atomic.Bool
	// muted is set when a DropReplyTo fault fires on this connection.
	muted atomic.Bool

	// readDeadline mirrors the read deadline in Unix nanoseconds (0: none);
	// deadlineCh is signalled when it changes.
	readDeadline atomic.Int64
	deadlineCh   chan struct{}

	// wmu serialises writes and guards parser and frames.
	wmu    sync.Mutex
	parser frameParser
	frames []frame

	// rmu guards sniffer, which reads the server's connect response.
	rmu     sync.Mutex
	sniffer connectSniffer

	// mu guards dropTimer and the closing of closed.
	mu        sync.Mutex
	closed    chan struct{}
	dropTimer *time.Timer
}

// Read reads from the server unless the connection is muted or blackholed:
// a muted connection discards everything it receives and fails once closed;
// a blackholed one discards everything it receives and fails only on the
// read deadline or a close on the client's side.
func (c *proxyConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return c.Conn.Read(p)
	}
	for {
		n, err := c.Conn.Read(p)
		switch {
		case c.muted.Load():
			if err != nil {
				return 0, err
			}
		case c.blackholed.Load():
			if err == nil {
				continue
			}
			if c.closedHere() || errors.Is(err, os.ErrDeadlineExceeded) {
				return 0, err
			}
			// The server hung up, but a partitioned client would not know.
			return 0, c.hold()
		default:
			c.sniff(p[:n])
			return n, err
		}
	}
}

// sniff passes bytes from the server to the connect response sniffer and
// tells the link the session once it is complete.
func (c *proxyConn) sniff(b []byte) {
	c.rmu.Lock()
	id, passwd, timeout, ok := c.sniffer.feed(b)
	c.rmu.Unlock()
	if ok {
		c.link.noteSession(c.addr, id, passwd, timeout)
	}
}

// closedHere reports whether the connection was closed on the client's side.
func (c *proxyConn) closedHere() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// hold blocks a read on a blackholed connection until its deadline passes
// or the connection is closed on the client's side.
func (c *proxyConn) hold() error {
	for {
		var expired <-chan time.Time
		var t *time.Timer
		if d := c.readDeadline.Load(); d != 0 {
			wait := time.Until(time.Unix(0, d))
			if wait <= 0 {
				return c.readErr(os.ErrDeadlineExceeded)
			}
			t = time.NewTimer(wait)
			expired = t.C
		}
		select {
		case <-c.closed:
			if t != nil {
				t.Stop()
			}
			return c.readErr(net.ErrClosed)
		case <-c.deadlineCh:
		case <-expired:
		}
		if t != nil {
			t.Stop()
		}
	}
}

func (c *proxyConn) readErr(err error) error {
	return &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// SetDeadline sets both deadlines on the underlying connection.
func (c *proxyConn) SetDeadline(t time.Time) error {
	c.noteReadDeadline(t)
	return c.Conn.SetDeadline(t)
}

// SetReadDeadline sets the read deadline on the underlying connection.
func (c *proxyConn) SetReadDeadline(t time.Time) error {
	c.noteReadDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

func (c *proxyConn) noteReadDeadline(t time.Time) {
	var ns int64
	if !t.IsZero() {
		ns = t.UnixNano()
	}
	c.readDeadline.Store(ns)
	select {
	case c.deadlineCh <- struct{}{}:
	default:
	}
}

// Write forwards p to the server unchanged, counting the requests it
// completes, unless the connection is blackholed or muted (then p is dropped
// and the write reports success). When a request completed by p matches an
// armed DropReplyTo fault, the connection is muted before that request is
// forwarded, and the bytes after it are dropped. When it completes a
// request that matches an armed HoldRequest fault, p waits for the fault's
// release first.
func (c *proxyConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.blackholed.Load() || c.muted.Load() {
		return len(p), nil
	}
	c.frames = c.parser.feed(p, c.frames[:0])
	if err := c.holdFor(c.frames); err != nil {
		return 0, err
	}
	if c.blackholed.Load() || c.muted.Load() {
		return len(p), nil
	}
	for i, f := range c.frames {
		if k := c.link.takeCut(f.op); k != nil {
			c.muted.Store(true)
			n, err := c.Conn.Write(p[:max(0, f.end-1)])
			c.countSent(c.frames[:i], n)
			close(k.fired)
			_ = c.Close()
			if err == nil {
				err = &net.OpError{Op: "write", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: net.ErrClosed}
			}
			return n, err
		}
		d := c.link.takeDrop(f.op)
		if d == nil {
			continue
		}
		c.muted.Store(true)
		n, err := c.Conn.Write(p[:f.end])
		c.countSent(c.frames[:i+1], n)
		close(d.fired)
		c.closeLater()
		if err != nil {
			return n, err
		}
		return len(p), nil
	}
	n, err := c.Conn.Write(p)
	c.countSent(c.frames, n)
	return n, err
}

// holdFor blocks while a HoldRequest fault holds one of frames (see
// Link.HoldRequest), and fails when the connection closes meanwhile.
func (c *proxyConn) holdFor(frames []frame) error {
	for _, f := range frames {
		h := c.link.takeHold(f.op)
		if h == nil {
			continue
		}
		close(h.fired)
		select {
		case <-h.release:
		case <-c.closed:
			return &net.OpError{Op: "write", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: net.ErrClosed}
		}
	}
	return nil
}

// countSent counts the frames whose last byte is within the first n bytes written.
func (c *proxyConn) countSent(frames []frame, n int) {
	k := 0
	for k < len(frames) && frames[k].end <= n {
		k++
	}
	c.link.count(frames[:k])
}

// closeLater closes the connection after dropCloseDelay.
func (c *proxyConn) closeLater() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropTimer != nil || c.closedHere() {
		return
	}
	c.dropTimer = time.AfterFunc(dropCloseDelay, func() { _ = c.Close() })
}

// Close closes the connection and forgets it in its link. It may be called
// more than once; later calls return the underlying connection's error.
func (c *proxyConn) Close() error {
	c.mu.Lock()
	if !c.closedHere() {
		close(c.closed)
		if c.dropTimer != nil {
			c.dropTimer.Stop()
		}
	}
	c.mu.Unlock()
	c.link.forget(c)
	return c.Conn.Close()
}
