package client

import (
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/go-zookeeper/zk"
)

// Failing Start fast: while Start waits for the first session, the dials
// and the connections they open report TLS failures here. Once every
// server has failed for a reason that will not pass by itself (see
// TLSError.final), Start returns that error instead of waiting for its ctx
// to end. A connection that ends before its first byte, and a handshake
// that ends in an EOF, may mean that client and server disagree on TLS:
// a probe on a connection of its own then tells (see tlsprobe.go).

// startWatch is what one Start learns while it waits (guarded by Client.mu).
type startWatch struct {
	fail    chan error       // gets the error Start returns at once (buffered 1)
	refused map[string]error // server address -> its final TLS failure
	last    error            // the latest TLS failure, for Start's error when ctx ends
	probing map[string]bool  // servers a probe runs against
}

func newStartWatch() *startWatch {
	return &startWatch{fail: make(chan error, 1), refused: map[string]error{}, probing: map[string]bool{}}
}

// watchingLocked returns the start watch of generation gen while Start
// waits for the first session, else nil. c.mu must be held.
func (c *Client) watchingLocked(gen uint64) *startWatch {
	if c.starting == nil || c.gen != gen || c.sess != nil || c.closed {
		return nil
	}
	return c.starting
}

// dialFailed hears of a failed dial of generation gen to addr.
func (c *Client) dialFailed(gen uint64, addr string, err error) {
	var te *TLSError
	if !errors.As(err, &te) {
		return
	}
	if te.final() {
		c.refuse(gen, addr, te)
		return
	}
	c.mu.Lock()
	sw := c.watchingLocked(gen)
	if sw != nil {
		sw.last = te
	}
	c.mu.Unlock()
	if sw != nil && c.cfg.tls != nil && cutShort(te.Err) {
		c.probe(gen, addr, c.probePlain)
	}
}

// earlyEnd hears that a connection of generation gen to addr failed
// before the server sent anything: the server may have refused the
// client's certificate (its alert), or, without WithTLS, be a TLS port
// that drops a plain connect request.
func (c *Client) earlyEnd(gen uint64, addr string, err error) {
	switch {
	case isRemoteAlert(err):
		c.refuse(gen, addr, &TLSError{Addr: addr, Err: err})
	case c.cfg.tls == nil && cutShort(err):
		c.probe(gen, addr, c.probeTLS)
	}
}

// refuse records te, a final TLS failure of addr, and fails the waiting
// Start once every server has one.
func (c *Client) refuse(gen uint64, addr string, te *TLSError) {
	c.log.Warn("TLS failure", "server", addr, "err", te.Err)
	c.mu.Lock()
	defer c.mu.Unlock()
	sw := c.watchingLocked(gen)
	if sw == nil {
		return
	}
	sw.last = te
	sw.refused[addr] = te
	if len(sw.refused) < c.serverCount() {
		return
	}
	select {
	case sw.fail <- te:
	default:
	}
}

// serverCount is the number of distinct server addresses, as dialled.
func (c *Client) serverCount() int {
	seen := map[string]bool{}
	for _, s := range zk.FormatServers(c.cfg.servers) {
		seen[s] = true
	}
	return len(seen)
}

// cutShort reports whether err means the peer closed or reset the
// connection.
func cutShort(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// firstReadConn tells its client when the connection fails before the
// server sent a byte. Only the connection's handshake, then its reader,
// read a connection, one after the other: no lock is needed.
type firstReadConn struct {
	net.Conn
	got   bool // a byte arrived, or the first failure was reported
	early func(err error)
}

// Read reads, reporting a failure before the first byte.
func (f *firstReadConn) Read(p []byte) (int, error) {
	n, err := f.Conn.Read(p)
	if !f.got && (n > 0 || err != nil) {
		f.got = true
		if n == 0 {
			f.early(err)
		}
	}
	return n, err
}

// watchFirstReply wraps raw, a connection of generation gen to addr, so
// that a failure before its first byte reaches earlyEnd, while Start
// waits for the first session; afterwards connections are not wrapped.
func (c *Client) watchFirstReply(gen uint64, addr string, raw net.Conn) net.Conn {
	c.mu.Lock()
	sw := c.watchingLocked(gen)
	c.mu.Unlock()
	if sw == nil {
		return raw
	}
	return &firstReadConn{Conn: raw, early: func(err error) { c.earlyEnd(gen, addr, err) }}
}
