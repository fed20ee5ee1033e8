package faultlink

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrNoSession is returned by Link.ExpireSession when no connection of the
// link has been given a session yet.
var ErrNoSession = errors.New("faultlink: no session seen on the link")

// maxConnectResponse bounds the connect response the link sniffs: 4 bytes
// of protocol version, 4 of timeout, 8 of session id, a password of 16 bytes
// with its 4-byte length and a read-only flag, with room to spare.
const maxConnectResponse = 256

// closeSessionXid is the xid ExpireSession gives its closeSession request.
const closeSessionXid int32 = 1

// sessionInfo is what the server's connect response told the client: the
// session, its password and negotiated timeout, and the server it is on.
type sessionInfo struct {
	addr    string
	id      int64
	passwd  []byte
	timeout int32
}

// connectSniffer collects the first frame the server sends on a connection,
// its connect response, as it passes to the client.
type connectSniffer struct {
	buf  []byte
	done bool
}

// feed takes bytes read from the server; once the connect response is
// complete it returns the session it names (ok), and nothing after that.
func (s *connectSniffer) feed(b []byte) (id int64, passwd []byte, timeout int32, ok bool) {
	if s.done || len(b) == 0 {
		return 0, nil, 0, false
	}
	s.buf = append(s.buf, b...)
	if len(s.buf) < 4 {
		return 0, nil, 0, false
	}
	size := int(int32(binary.BigEndian.Uint32(s.buf[:4])))
	if size < 20 || size > maxConnectResponse {
		s.done, s.buf = true, nil // not a connect response we understand
		return 0, nil, 0, false
	}
	if len(s.buf) < 4+size {
		return 0, nil, 0, false
	}
	id, passwd, timeout, ok = parseConnectResponse(s.buf[4 : 4+size])
	s.done, s.buf = true, nil
	return id, passwd, timeout, ok
}

// parseConnectResponse decodes a connect response's body: protocol version,
// negotiated timeout, session id and password (a read-only flag may follow).
func parseConnectResponse(b []byte) (id int64, passwd []byte, timeout int32, ok bool) {
	if len(b) < 20 {
		return 0, nil, 0, false
	}
	timeout = int32(binary.BigEndian.Uint32(b[4:8]))
	id = int64(binary.BigEndian.Uint64(b[8:16]))
	n := int(int32(binary.BigEndian.Uint32(b[16:20])))
	if n < 0 || 20+n > len(b) {
		return 0, nil, 0, false
	}
	return id, append([]byte(nil), b[20:20+n]...), timeout, true
}

// noteSession records the session a connection to addr was given; a
// negotiated timeout of zero or less is the server refusing an expired
// session, which names none.
func (l *Link) noteSession(addr string, id int64, passwd []byte, timeout int32) {
	if timeout <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.session = &sessionInfo{addr: addr, id: id, passwd: passwd, timeout: timeout}
}

// SessionID returns the id of the newest session the server gave the
// client through this link, and false when there is none yet.
func (l *Link) SessionID() (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.session == nil {
		return 0, false
	}
	return l.session.id, true
}

// ExpireSession makes the server end the client's session now, as if it had
// timed out: it opens a connection of its own (not through the link, so it
// works while the link is cut or blackholed) to the server that gave the
// newest session seen on the link, attaches to that session with its id and
// password and closes it. The server then deletes the session's ephemeral
// nodes, fires their watches and closes the client's connection; the client
// learns that its session expired when it reconnects (client.StateLost,
// then a new session). Curator's tests do the same with KillSession.
//
// It returns once the server confirmed the close, or with an error when ctx
// ends first. A session that the server already ended is not an error. With
// no session seen yet it returns ErrNoSession.
func (l *Link) ExpireSession(ctx context.Context) error {
	l.mu.Lock()
	s := l.session
	l.mu.Unlock()
	if s == nil {
		return ErrNoSession
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("faultlink: expire session 0x%x: %w", s.id, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := closeSessionOn(conn, s); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("faultlink: expire session 0x%x on %s: %w", s.id, s.addr, err)
	}
	return nil
}

// closeSessionOn attaches conn to session s and closes the session.
func closeSessionOn(conn net.Conn, s *sessionInfo) error {
	// Connect request: protocol version, last zxid seen, timeout, session
	// id, password, read-only flag.
	req := binary.BigEndian.AppendUint32(nil, uint32(4+8+4+8+4+len(s.passwd)+1))
	req = binary.BigEndian.AppendUint32(req, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, uint32(s.timeout))
	req = binary.BigEndian.AppendUint64(req, uint64(s.id))
	req = binary.BigEndian.AppendUint32(req, uint32(len(s.passwd)))
	req = append(req, s.passwd...)
	req = append(req, 0)
	if _, err := conn.Write(req); err != nil {
		return err
	}
	resp, err := readFrame(conn)
	if err != nil {
		return fmt.Errorf("connect response: %w", err)
	}
	_, _, timeout, ok := parseConnectResponse(resp)
	if !ok {
		return fmt.Errorf("connect response of %d bytes makes no sense", len(resp))
	}
	if timeout <= 0 {
		return nil // the server had ended the session already
	}
	// closeSession: a request header (xid, opcode) and no body.
	req = binary.BigEndian.AppendUint32(nil, 8)
	req = binary.BigEndian.AppendUint32(req, uint32(closeSessionXid))
	op := OpClose
	req = binary.BigEndian.AppendUint32(req, uint32(op))
	if _, err := conn.Write(req); err != nil {
		return err
	}
	for {
		// Reply header: xid, zxid, error code.
		reply, err := readFrame(conn)
		if err != nil {
			return fmt.Errorf("closeSession reply: %w", err)
		}
		if len(reply) < 16 {
			return fmt.Errorf("closeSession reply of %d bytes makes no sense", len(reply))
		}
		if int32(binary.BigEndian.Uint32(reply[:4])) != closeSessionXid {
			continue // a watch event or ping reply for the session
		}
		if code := int32(binary.BigEndian.Uint32(reply[12:16])); code != 0 {
			return fmt.Errorf("closeSession failed with ZooKeeper error code %d", code)
		}
		return nil
	}
}

// readFrame reads one length-prefixed frame from conn.
func readFrame(conn net.Conn) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(hdr[:]))
	if n < 0 || n > 1<<20 {
		return nil, fmt.Errorf("frame length %d", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(conn, b); err != nil {
		return nil, err
	}
	return b, nil
}
