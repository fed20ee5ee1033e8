// Package wire is zkrecipes' own ZooKeeper connection: the jute codec and
// one connection loop that keeps a session across reconnects. It speaks
// go-zookeeper's vocabulary (zk.Stat, zk.ACL, its error values, flags and
// event types), so the client above it reads as it did on go-zookeeper.
//
// One Conn is one session at a time, over one TCP (or TLS) connection at a
// time: a reader goroutine, a writer that sends everything queued in one
// write, and the loop goroutine that dials, handshakes and, between two
// connections, owns the session's state (its id, password and last zxid).
package wire

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultMaxFrame bounds a frame from the server, as jute.maxbuffer does in
// the Java client: a longer (or negative) length breaks the connection.
const DefaultMaxFrame = 1 << 20

// Hosts chooses the server of each dial: go-zookeeper's HostProvider less
// its Init and Len.
type Hosts interface {
	// Next returns the server to dial next, and whether every server has
	// been tried since the last successful connection.
	Next() (server string, retryStart bool)
	// Connected marks the last server returned as good.
	Connected()
}

// Config is a Conn's settings.
type Config struct {
	// Hosts chooses the server of each dial.
	Hosts Hosts
	// SessionTimeout is the timeout asked for in each connect request.
	SessionTimeout time.Duration
	// Dial opens a connection to address (TLS included, if any).
	Dial func(network, address string, timeout time.Duration) (net.Conn, error)
	// Event gets every session event and watch notification, in order, on
	// the Conn's own goroutines, one call at a time. It must not block.
	// zxid is a notification's: the change's zxid from ZooKeeper 3.9 on,
	// else -1 (and -1 for every session event).
	Event func(ev zk.Event, zxid int64)
	// MaxFrame bounds a frame from the server (DefaultMaxFrame when 0).
	MaxFrame int
	// Logger gets the connection's own warnings.
	Logger *slog.Logger
	// DialTimeout bounds each dial (1 s when 0).
	DialTimeout time.Duration
	// LiveFraction is the share of the negotiated session timeout after
	// which a connection that got no reply to anything sent since is
	// dropped, as num/den (2/3 when zero).
	LiveNum, LiveDen int64
	// Request, if set, is called once for every request written to the
	// server, once it has its outcome (its reply, or the loss of its
	// connection): its op, the time since its write, its error. It runs on
	// the reader goroutine (or the one failing a lost link's requests),
	// before the caller learns of the outcome, and must be quick.
	Request func(op int32, took time.Duration, err error)
}

// ErrClosing is returned to every call on a closed Conn; it is
// go-zookeeper's zk.ErrClosing.
var ErrClosing = zk.ErrClosing

// ErrConnectionClosed is returned to a request whose connection was lost
// before its reply came, or that was made while there was none; it is
// go-zookeeper's zk.ErrConnectionClosed.
var ErrConnectionClosed = zk.ErrConnectionClosed

// Conn is one ZooKeeper session kept across connections.
type Conn struct {
	cfg  Config
	quit chan struct{} // closed by Close
	done chan struct{} // closed when the loop has ended

	mu        sync.Mutex
	closing   bool
	link      *link // the connection carrying requests, nil between connections
	xid       int32
	sessionID int64
	timeout   time.Duration // negotiated
	server    string
	creds     []cred
	watches   watchTable
	// removal says whether the server has removeWatches (see
	// askRemovalLocked).
	removal int32

	// Owned by the loop goroutine, and by a link's reader while it runs
	// (the loop reads them only after the reader has ended).
	passwd   []byte
	lastZxid int64
}

type cred struct {
	scheme string
	auth   []byte
}

// Dial returns a Conn and starts its loop, which dials the servers in turn
// until one grants a session. It does no I/O itself.
func Dial(cfg Config) *Conn {
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = time.Second
	}
	if cfg.LiveNum <= 0 || cfg.LiveDen <= 0 {
		cfg.LiveNum, cfg.LiveDen = 2, 3
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Event == nil {
		cfg.Event = func(zk.Event, int64) {}
	}
	c := &Conn{cfg: cfg, quit: make(chan struct{}), done: make(chan struct{})}
	c.watches.init()
	go c.loop()
	return c
}

// SessionID is the current session's id (0 before the first and after an expiry).
func (c *Conn) SessionID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// NegotiatedTimeout is the session timeout the server granted the current session.
func (c *Conn) NegotiatedTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timeout
}

// Server is the address of the server last dialled.
func (c *Conn) Server() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server
}

// Close ends the session (closeSession, waiting up to a second for its
// reply, so the server deletes its ephemeral nodes at once), fails every
// request in flight with ErrClosing, tells every watch (zk.EventNotWatching)
// and returns once every goroutine of the Conn has ended.
func (c *Conn) Close() {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		<-c.done
		return
	}
	c.closing = true // no request but the closeSession below, and no redial
	l := c.link
	var r *request
	if l != nil {
		r = newRequest(opCloseSession, nil)
		l.queueLocked(r, nil)
		l.wakeLocked()
	}
	c.mu.Unlock()
	if r != nil {
		t := time.NewTimer(time.Second)
		select {
		case <-r.done:
		case <-t.C:
		}
		t.Stop()
	}
	c.mu.Lock()
	l = c.link
	c.mu.Unlock()
	close(c.quit)
	if l != nil {
		l.close()
	}
	<-c.done
}

func (c *Conn) emit(state zk.State) {
	c.cfg.Event(zk.Event{Type: zk.EventSession, State: state, Server: c.Server()}, -1)
}

// loop dials, handshakes and runs one link at a time until Close.
func (c *Conn) loop() {
	defer close(c.done)
	defer func() {
		c.failWatches(zk.ErrClosing)
	}()
	for {
		c.mu.Lock()
		closing := c.closing
		c.mu.Unlock()
		if closing {
			<-c.quit // Close is ending the session: no redial
			return
		}
		addr, retryStart := c.cfg.Hosts.Next()
		c.mu.Lock()
		c.server = addr
		c.mu.Unlock()
		c.emit(zk.StateConnecting)
		if retryStart && !c.sleep(time.Second) {
			return
		}
		nc, err := c.cfg.Dial("tcp", addr, c.cfg.DialTimeout)
		if err != nil || nc == nil {
			if err != nil {
				c.cfg.Logger.Debug("zookeeper dial failed", "server", addr, "err", err)
			}
			continue
		}
		c.emit(zk.StateConnected)
		c.session(nc)
		c.emit(zk.StateDisconnected)
	}
}

// session handshakes on nc and, with a session granted, runs it as the
// Conn's link until it breaks or Close.
func (c *Conn) session(nc net.Conn) {
	c.mu.Lock()
	req := connectRequest{
		lastZxidSeen: c.lastZxid,
		timeoutMs:    int32(c.cfg.SessionTimeout / time.Millisecond),
		sessionID:    c.sessionID,
		passwd:       c.passwd,
	}
	c.mu.Unlock()
	if req.passwd == nil {
		req.passwd = make([]byte, 16)
	}
	resp, err := handshake(nc, &req, c.cfg.SessionTimeout, c.cfg.MaxFrame, c.quit)
	if err != nil {
		c.cfg.Logger.Debug("zookeeper handshake failed", "server", c.Server(), "err", err)
		_ = nc.Close()
		return
	}
	if resp.sessionID == 0 || resp.timeoutMs <= 0 {
		// The server does not know the session (any more): it expired.
		_ = nc.Close()
		c.mu.Lock()
		c.sessionID, c.timeout = 0, 0
		c.mu.Unlock()
		c.passwd, c.lastZxid = nil, 0
		c.emit(zk.StateExpired)
		c.failWatches(zk.ErrSessionExpired)
		return
	}
	c.cfg.Hosts.Connected()
	timeout := time.Duration(resp.timeoutMs) * time.Millisecond
	l := newLink(c, nc, timeout)
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		// Close came during the handshake: end the session it granted, so
		// that its ephemeral nodes go now, not a session timeout later.
		closeSessionOn(nc)
		return
	}
	c.passwd = resp.passwd
	c.sessionID, c.timeout = resp.sessionID, timeout
	c.link = l
	// The prelude goes out ahead of every request: credentials, then the
	// watches to set again.
	for _, cr := range c.creds {
		l.queueFrameLocked(newRequest(opAuth, nil), authPacket(cr))
	}
	for _, sw := range c.watches.setWatchesLocked(c.lastZxid) {
		l.queueFrameLocked(newRequest(opSetWatches, nil), sw) // v1 or v2: the frame says
	}
	l.wakeLocked()
	c.mu.Unlock()
	c.emit(zk.StateHasSession)
	l.run()
	c.mu.Lock()
	c.link = nil
	closing := c.closing
	c.mu.Unlock()
	err = ErrConnectionClosed
	if closing {
		err = ErrClosing
	}
	l.failPending(err)
}

// sleep waits d, or returns false at once on Close.
func (c *Conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.quit:
		return false
	}
}

// handshake sends the connect request and reads the response, within
// timeout (or until quit closes).
func handshake(nc net.Conn, req *connectRequest, timeout time.Duration, maxFrame int, quit <-chan struct{}) (connectResponse, error) {
	// The deadline first: a Close that comes meanwhile cuts it short, and
	// must not be overwritten by it.
	_ = nc.SetDeadline(time.Now().Add(timeout))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-quit:
			_ = nc.SetDeadline(time.Now())
		case <-stop:
		}
	}()
	defer func() { _ = nc.SetDeadline(time.Time{}) }()
	e := encoder{b: make([]byte, 4, 64)}
	req.encode(&e)
	putLength(e.b)
	if _, err := nc.Write(e.b); err != nil {
		return connectResponse{}, err
	}
	body, err := readFrame(nc, nil, maxFrame)
	if err != nil {
		return connectResponse{}, err
	}
	return decodeConnectResponse(body)
}

// closeSessionOn sends closeSession on a connection that is no link (a
// handshake Close overtook), waits briefly for the reply, and closes it.
func closeSessionOn(nc net.Conn) {
	frame := requestFrame(opCloseSession, nil)
	putXid(frame, 1)
	_ = nc.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := nc.Write(frame); err == nil {
		_, _ = readFrame(nc, nil, replyHeaderLen+64)
	}
	_ = nc.Close()
}

// errFrameBound is wrapped by readFrame's error for a length over the bound.
var errFrameBound = errors.New("frame length out of bounds")

// readFrame reads one frame's body into buf (grown as needed).
func readFrame(r io.Reader, buf []byte, maxFrame int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int32(uint32(hdr[0])<<24 | uint32(hdr[1])<<16 | uint32(hdr[2])<<8 | uint32(hdr[3]))
	if n < 0 || int(n) > maxFrame {
		return nil, errors.Join(ErrMalformed, errFrameBound)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

func putLength(b []byte) {
	n := uint32(len(b) - 4)
	b[0], b[1], b[2], b[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
}
