package zkharness

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ZooKeeper request opcodes, as they appear in the request header of the
// client-to-server protocol. Tests use them with Link.Requests and
// Link.DropReplyTo.
const (
	OpCreate          int32 = 1
	OpDelete          int32 = 2
	OpExists          int32 = 3
	OpGetData         int32 = 4
	OpSetData         int32 = 5
	OpGetChildren     int32 = 8
	OpSync            int32 = 9
	OpPing            int32 = 11
	OpGetChildren2    int32 = 12
	OpCheck           int32 = 13
	OpMulti           int32 = 14
	OpCreate2         int32 = 15
	OpCreateContainer int32 = 19
	OpCreateTTL       int32 = 21
	OpClose           int32 = -11
	OpSetAuth         int32 = 100
	OpSetWatches      int32 = 101
)

var (
	// ErrLinkCut is returned by Link.Dial while the link is cut.
	ErrLinkCut = errors.New("zkharness: link is cut")
	// ErrLinkBlackholed is wrapped by the timeout error Link.Dial returns
	// when its timeout expires while the link is blackholed.
	ErrLinkBlackholed = errors.New("zkharness: link is blackholed")
	// ErrLinkClosed is returned by Link.Dial once the link is closed.
	ErrLinkClosed = errors.New("zkharness: link is closed")
)

// linkDropCloseDelay is how long a connection hit by a DropReplyTo fault stays
// open (muted) after the request went out, so that the server has processed
// the request before the client sees the connection fail.
const linkDropCloseDelay = 300 * time.Millisecond

// linkMode is the fault state of a whole link.
type linkMode int

const (
	linkNormal linkMode = iota
	linkCut
	linkBlackholed
	linkClosed
)

// Link wraps every connection one client dials, so a test can cut, blackhole
// or count that client's traffic without touching other clients.
//
// Give Link.Dial to the client as its dialer (it has the shape of
// go-zookeeper's zk.Dialer). Create links with NewLink; a Link must not be
// copied after first use. All methods are safe for concurrent use.
type Link struct {
	mu       sync.Mutex
	mode     linkMode
	changed  chan struct{} // closed and replaced on every mode change
	conns    map[*linkConn]struct{}
	drops    []*linkDrop
	requests map[int32]int64
	dials    int64
}

// linkDrop is one armed DropReplyTo fault.
type linkDrop struct {
	ops   []int32
	fired chan struct{}
}

// NewLink returns a link with no fault set. It does no I/O.
func NewLink() *Link {
	l := &Link{}
	l.linkInitLocked()
	return l
}

// linkInitLocked makes the zero Link usable. l.mu must be held (or l unshared).
func (l *Link) linkInitLocked() {
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	if l.conns == nil {
		l.conns = make(map[*linkConn]struct{})
	}
	if l.requests == nil {
		l.requests = make(map[int32]int64)
	}
}

// linkNotifyLocked wakes every Dial waiting for a mode change. l.mu must be held.
func (l *Link) linkNotifyLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Dial is a zk.Dialer: it dials TCP (honouring timeout) unless the link is
// cut or closed, in which case it returns an error wrapping ErrLinkCut or
// ErrLinkClosed at once. While the link is blackholed it waits: it fails with
// a timeout error (wrapping ErrLinkBlackholed and os.ErrDeadlineExceeded) when
// timeout expires, and dials as usual if the link is restored first. A
// timeout of zero or less means no timeout.
func (l *Link) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		l.mu.Lock()
		l.linkInitLocked()
		mode, changed := l.mode, l.changed
		l.mu.Unlock()
		if mode != linkBlackholed {
			if err := linkModeErr(mode); err != nil {
				return nil, fmt.Errorf("zkharness: dial %s %s: %w", network, address, err)
			}
			break
		}
		if !linkWaitChange(changed, deadline) {
			return nil, &linkDialTimeoutError{network: network, address: address}
		}
	}

	d := net.Dialer{Deadline: deadline}
	raw, err := d.Dial(network, address)
	if err != nil {
		return nil, err
	}
	c := &linkConn{
		Conn:       raw,
		link:       l,
		closed:     make(chan struct{}),
		deadlineCh: make(chan struct{}, 1),
	}

	l.mu.Lock()
	if err := linkModeErr(l.mode); err != nil {
		l.mu.Unlock()
		_ = raw.Close()
		return nil, fmt.Errorf("zkharness: dial %s %s: %w", network, address, err)
	}
	if l.mode == linkBlackholed {
		// The partition began while the TCP handshake was under way.
		c.blackholed.Store(true)
	}
	l.conns[c] = struct{}{}
	l.dials++
	l.mu.Unlock()
	return c, nil
}

// linkModeErr is the error Dial returns at once in mode, or nil.
func linkModeErr(mode linkMode) error {
	switch mode {
	case linkCut:
		return ErrLinkCut
	case linkClosed:
		return ErrLinkClosed
	default:
		return nil
	}
}

// linkWaitChange waits for changed to be closed; it reports false if deadline
// (when not zero) passes first.
func linkWaitChange(changed <-chan struct{}, deadline time.Time) bool {
	if deadline.IsZero() {
		<-changed
		return true
	}
	wait := time.Until(deadline)
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-changed:
		return true
	case <-t.C:
		return false
	}
}

// linkDialTimeoutError is the net.Error a dial gets when its timeout expires
// during a blackhole.
type linkDialTimeoutError struct {
	network, address string
}

func (e *linkDialTimeoutError) Error() string {
	return fmt.Sprintf("zkharness: dial %s %s: %v: %v", e.network, e.address, ErrLinkBlackholed, os.ErrDeadlineExceeded)
}

// Timeout reports true: the dial ran out of time.
func (e *linkDialTimeoutError) Timeout() bool { return true }

// Temporary reports true: the dial may work once the link is restored.
func (e *linkDialTimeoutError) Temporary() bool { return true }

// Is lets errors.Is match ErrLinkBlackholed and os.ErrDeadlineExceeded.
func (e *linkDialTimeoutError) Is(target error) bool {
	return target == ErrLinkBlackholed || target == os.ErrDeadlineExceeded
}

// Cut closes every open connection of this link and refuses new dials until
// Restore (the client sees connection loss at once; its session lives on the
// server until it times out). Cut does nothing once the link is closed.
func (l *Link) Cut() {
	l.mu.Lock()
	l.linkInitLocked()
	if l.mode == linkClosed {
		l.mu.Unlock()
		return
	}
	l.mode = linkCut
	victims := l.linkTakeLocked(func(*linkConn) bool { return true })
	l.linkNotifyLocked()
	l.mu.Unlock()
	linkCloseAll(victims)
}

// Blackhole keeps connections open but silently drops everything in both
// directions and makes new dials hang until their timeout, as a network
// partition does; Restore ends it (existing blackholed connections are closed
// by Restore, so the client reconnects).
//
// While blackholed, writes report success and reads return no data; a read
// fails only when its deadline passes or the connection is closed on the
// client's side, never because of anything the server does. Blackhole does
// nothing once the link is closed.
func (l *Link) Blackhole() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.linkInitLocked()
	if l.mode == linkClosed {
		return
	}
	l.mode = linkBlackholed
	for c := range l.conns {
		c.blackholed.Store(true)
	}
	l.linkNotifyLocked()
}

// Restore ends a Cut or Blackhole: dials work again, and connections that
// were blackholed are closed so that the client reconnects. Armed DropReplyTo
// faults stay armed. Restore does nothing once the link is closed.
func (l *Link) Restore() {
	l.mu.Lock()
	l.linkInitLocked()
	if l.mode == linkClosed {
		l.mu.Unlock()
		return
	}
	l.mode = linkNormal
	victims := l.linkTakeLocked(func(c *linkConn) bool { return c.blackholed.Load() })
	l.linkNotifyLocked()
	l.mu.Unlock()
	linkCloseAll(victims)
}

// Close is like Cut, permanently: it closes every open connection, fails
// dials under way or to come with ErrLinkClosed, and makes Cut, Blackhole and
// Restore do nothing. It is idempotent. Armed DropReplyTo faults that never
// fired keep their channels open.
func (l *Link) Close() {
	l.mu.Lock()
	l.linkInitLocked()
	if l.mode == linkClosed {
		l.mu.Unlock()
		return
	}
	l.mode = linkClosed
	victims := l.linkTakeLocked(func(*linkConn) bool { return true })
	l.linkNotifyLocked()
	l.mu.Unlock()
	linkCloseAll(victims)
}

// linkTakeLocked removes and returns the open connections that match pick.
// l.mu must be held.
func (l *Link) linkTakeLocked(pick func(*linkConn) bool) []*linkConn {
	var out []*linkConn
	for c := range l.conns {
		if pick(c) {
			out = append(out, c)
			delete(l.conns, c)
		}
	}
	return out
}

// linkCloseAll closes conns; it must be called without l.mu held.
func linkCloseAll(conns []*linkConn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// linkForget drops c from the set of open connections.
func (l *Link) linkForget(c *linkConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// DropReplyTo arms a one-shot fault: the next request whose opcode is one of
// ops (any request at all when ops is empty), on any connection of this link,
// is delivered to the server, but the client never sees its reply: from that
// write on, nothing more from the server reaches the client on that
// connection, nothing more the client writes on it reaches the server, and
// the connection is closed shortly after (300ms, long enough for the server
// to have processed the request). Replies to earlier requests that the client
// has not read by then are lost too. It returns a channel closed once the
// request went out. Faults armed by several calls fire independently, oldest
// first; a fault that never fires keeps its channel open.
func (l *Link) DropReplyTo(ops ...int32) <-chan struct{} {
	d := &linkDrop{ops: slices.Clone(ops), fired: make(chan struct{})}
	l.mu.Lock()
	l.linkInitLocked()
	l.drops = append(l.drops, d)
	l.mu.Unlock()
	return d.fired
}

// linkTakeDrop disarms and returns the oldest armed fault matching op, if any.
func (l *Link) linkTakeDrop(op int32) *linkDrop {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, d := range l.drops {
		if len(d.ops) == 0 || slices.Contains(d.ops, op) {
			l.drops = slices.Delete(l.drops, i, i+1)
			return d
		}
	}
	return nil
}

// Requests returns how many requests with this opcode the client has sent
// through the link so far (all connections). A request counts once all its
// bytes went to the server; requests swallowed by a blackhole or written
// after a DropReplyTo fault muted the connection do not count.
func (l *Link) Requests(op int32) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests[op]
}

// Dials returns how many dials through the link have succeeded so far.
func (l *Link) Dials() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dials
}

// linkCount records the requests in frames as sent.
func (l *Link) linkCount(frames []linkFrame) {
	if len(frames) == 0 {
		return
	}
	l.mu.Lock()
	l.linkInitLocked()
	for _, f := range frames {
		l.requests[f.op]++
	}
	l.mu.Unlock()
}

// linkConn is one connection dialed through a Link.
type linkConn struct {
	net.Conn

	link *Link

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
	parser linkParser
	frames []linkFrame

	// mu guards dropTimer and the closing of closed.
	mu        sync.Mutex
	closed    chan struct{}
	dropTimer *time.Timer
}

// Read reads from the server unless the connection is muted or blackholed:
// a muted connection discards everything it receives and fails once closed;
// a blackholed one discards everything it receives and fails only on the
// read deadline or a close on the client's side.
func (c *linkConn) Read(p []byte) (int, error) {
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
			if c.linkClosedHere() || errors.Is(err, os.ErrDeadlineExceeded) {
				return 0, err
			}
			// The server hung up, but a partitioned client would not know.
			return 0, c.linkHold()
		default:
			return n, err
		}
	}
}

// linkClosedHere reports whether the connection was closed on the client's side.
func (c *linkConn) linkClosedHere() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// linkHold blocks a read on a blackholed connection until its deadline passes
// or the connection is closed on the client's side.
func (c *linkConn) linkHold() error {
	for {
		var expired <-chan time.Time
		var t *time.Timer
		if d := c.readDeadline.Load(); d != 0 {
			wait := time.Until(time.Unix(0, d))
			if wait <= 0 {
				return c.linkReadErr(os.ErrDeadlineExceeded)
			}
			t = time.NewTimer(wait)
			expired = t.C
		}
		select {
		case <-c.closed:
			if t != nil {
				t.Stop()
			}
			return c.linkReadErr(net.ErrClosed)
		case <-c.deadlineCh:
		case <-expired:
		}
		if t != nil {
			t.Stop()
		}
	}
}

func (c *linkConn) linkReadErr(err error) error {
	return &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// SetDeadline sets both deadlines on the underlying connection.
func (c *linkConn) SetDeadline(t time.Time) error {
	c.linkNoteReadDeadline(t)
	return c.Conn.SetDeadline(t)
}

// SetReadDeadline sets the read deadline on the underlying connection.
func (c *linkConn) SetReadDeadline(t time.Time) error {
	c.linkNoteReadDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

func (c *linkConn) linkNoteReadDeadline(t time.Time) {
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
// forwarded, and the bytes after it are dropped.
func (c *linkConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.blackholed.Load() || c.muted.Load() {
		return len(p), nil
	}
	c.frames = c.parser.feed(p, c.frames[:0])
	for i, f := range c.frames {
		d := c.link.linkTakeDrop(f.op)
		if d == nil {
			continue
		}
		c.muted.Store(true)
		n, err := c.Conn.Write(p[:f.end])
		c.linkCountSent(c.frames[:i+1], n)
		close(d.fired)
		c.linkCloseLater()
		if err != nil {
			return n, err
		}
		return len(p), nil
	}
	n, err := c.Conn.Write(p)
	c.linkCountSent(c.frames, n)
	return n, err
}

// linkCountSent counts the frames whose last byte is within the first n bytes written.
func (c *linkConn) linkCountSent(frames []linkFrame, n int) {
	k := 0
	for k < len(frames) && frames[k].end <= n {
		k++
	}
	c.link.linkCount(frames[:k])
}

// linkCloseLater closes the connection after linkDropCloseDelay.
func (c *linkConn) linkCloseLater() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropTimer != nil || c.linkClosedHere() {
		return
	}
	c.dropTimer = time.AfterFunc(linkDropCloseDelay, func() { _ = c.Close() })
}

// Close closes the connection and forgets it in its link. It may be called
// more than once; later calls return the underlying connection's error.
func (c *linkConn) Close() error {
	c.mu.Lock()
	if !c.linkClosedHere() {
		close(c.closed)
		if c.dropTimer != nil {
			c.dropTimer.Stop()
		}
	}
	c.mu.Unlock()
	c.link.linkForget(c)
	return c.Conn.Close()
}

// linkFrame is one complete request seen in the client's byte stream: its
// opcode and the offset just past its last byte in the buffer being parsed.
type linkFrame struct {
	op  int32
	end int
}

// linkParser follows the client-to-server byte stream across writes. Each
// frame is a 4-byte big-endian length and that many bytes; the first frame of
// a connection is the connect request, and every later one starts with xid
// and opcode (both int32). Only the 12 header bytes are kept; the rest of a
// frame is skipped as it passes.
type linkParser struct {
	hdr       [12]byte
	hdrN      int   // header bytes collected for the current frame
	left      int64 // bytes of the current frame still to skip after its header
	connected bool  // the connect request has passed
	broken    bool  // the stream made no sense: stop parsing
}

// feed parses b, appends the requests it completes to out and returns out.
func (p *linkParser) feed(b []byte, out []linkFrame) []linkFrame {
	i := 0
	for i < len(b) && !p.broken {
		if p.hdrN < 4 {
			n := copy(p.hdr[p.hdrN:4], b[i:])
			p.hdrN += n
			i += n
			if p.hdrN < 4 {
				break
			}
			size := int32(binary.BigEndian.Uint32(p.hdr[:4]))
			switch {
			case size < 0, p.connected && size < 8:
				p.broken = true
				return out
			case p.connected:
				p.left = int64(size) - 8
			default:
				p.left = int64(size)
			}
		}
		if p.connected && p.hdrN < 12 {
			n := copy(p.hdr[p.hdrN:12], b[i:])
			p.hdrN += n
			i += n
			if p.hdrN < 12 {
				break
			}
		}
		skip := min(p.left, int64(len(b)-i))
		i += int(skip)
		p.left -= skip
		if p.left > 0 {
			break
		}
		if p.connected {
			out = append(out, linkFrame{op: int32(binary.BigEndian.Uint32(p.hdr[8:12])), end: i})
		} else {
			p.connected = true
		}
		p.hdrN = 0
	}
	return out
}
