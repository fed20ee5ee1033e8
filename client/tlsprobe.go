package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"time"
)

// probeWithin bounds one probe (its dial, and its exchange).
const probeWithin = 2 * time.Second

// probe runs check against addr on a goroutine of its own, unless one runs
// already or Start no longer waits; an error it returns is a final TLS
// failure of addr (see refuse).
func (c *Client) probe(gen uint64, addr string, check func(ctx context.Context, addr string) error) {
	c.mu.Lock()
	sw := c.watchingLocked(gen)
	if sw == nil || sw.probing[addr] {
		c.mu.Unlock()
		return
	}
	sw.probing[addr] = true
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), probeWithin)
		defer cancel()
		go func() {
			select {
			case <-c.closedCh:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := check(ctx, addr)
		c.mu.Lock()
		delete(sw.probing, addr)
		c.mu.Unlock()
		if err != nil {
			c.refuse(gen, addr, &TLSError{Addr: addr, Err: err})
		}
	}()
}

// probeConn dials addr with the client's dialer beneath TLS and ties
// the connection's deadline to ctx.
func (c *Client) probeConn(ctx context.Context, addr string) (net.Conn, func(), error) {
	conn, err := c.cfg.base("tcp", addr, probeWithin)
	if err != nil {
		return nil, nil, err
	}
	if conn == nil {
		return nil, nil, io.ErrUnexpectedEOF
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	return conn, func() { stop(); _ = conn.Close() }, nil
}

// probeTLS tells whether addr, which ended a plain connection before its
// first byte, speaks TLS: a handshake that completes, or that the server
// ends with an alert, says so (errServerSpeaksTLS). The handshake checks
// no certificate, offers none and carries no data: it only asks which
// protocol the port speaks.
func (c *Client) probeTLS(ctx context.Context, addr string) error {
	conn, done, err := c.probeConn(ctx, addr)
	if err != nil {
		return nil
	}
	defer done()
	host, _, _ := net.SplitHostPort(addr)
	tc := tls.Client(conn, &tls.Config{ServerName: host, InsecureSkipVerify: true}) //nolint:gosec // a probe: no data is sent
	if err := tc.HandshakeContext(ctx); err == nil || isRemoteAlert(err) {
		return errServerSpeaksTLS
	}
	return nil
}

// probePlain tells whether addr, which ended a TLS handshake with an EOF,
// is a plain ZooKeeper port: it answers the four-letter word "srvr" (or
// says that the word is not allowed) in plain text (errServerNotTLS).
func (c *Client) probePlain(ctx context.Context, addr string) error {
	conn, done, err := c.probeConn(ctx, addr)
	if err != nil {
		return nil
	}
	defer done()
	if _, err := conn.Write([]byte("srvr")); err != nil {
		return nil
	}
	reply, _ := io.ReadAll(io.LimitReader(conn, 512))
	if bytes.HasPrefix(reply, []byte("Zookeeper version:")) || bytes.Contains(reply, []byte("not in the whitelist")) {
		return errServerNotTLS
	}
	return nil
}
