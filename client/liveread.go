package client

import "time"

// The liveConn's reads. go-zookeeper reads every frame in two reads (its
// length, then its body) and sets the read deadline before each length and
// clears it after each body: four calls into the network poller per reply,
// two of them system calls. The liveConn reads the socket in chunks
// instead, passing on what it already has without a system call, and sets
// the deadline go-zookeeper asked for only before a read that has to wait
// on the socket: a read served from the buffer cannot time out.

// readChunk is the size of the liveConn's read buffer.
const readChunk = 16 << 10

// Read passes on the next bytes from the connection, then notes the replies
// (and the connect response) among them. After the connect response of a
// resumed session it may hold replies back (see hold.go).
func (l *liveConn) Read(p []byte) (int, error) {
	l.rmu.Lock()
	defer l.rmu.Unlock()
	if n, err, done := l.readHeld(p); done {
		return n, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	l.mu.Lock()
	if l.rpos < len(l.rbuf) {
		n := l.passBufferedLocked(p)
		l.mu.Unlock()
		return n, nil
	}
	l.mu.Unlock()
	if err := l.applyReadDeadline(); err != nil {
		return 0, err
	}
	if l.rbuf == nil {
		l.rbuf = make([]byte, 0, readChunk)
	}
	k, err := l.Conn.Read(l.rbuf[:readChunk])
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rbuf, l.rpos = l.rbuf[:k], 0
	n := 0
	if k > 0 {
		n = l.passBufferedLocked(p)
	}
	if n > 0 {
		return n, nil // an error comes again with the next read
	}
	return 0, err
}

// passBufferedLocked copies buffered bytes to p and notes them. A hold that
// the connect response among them starts takes the rest of the buffer over
// (see hold.go). l.mu must be held.
func (l *liveConn) passBufferedLocked(p []byte) int {
	n := copy(p, l.rbuf[l.rpos:])
	l.rpos += n
	l.in.feed(p[:n], time.Time{}, l.receivedLocked)
	if l.holdingLocked() && l.rpos < len(l.rbuf) {
		l.held = append(l.held, l.rbuf[l.rpos:]...)
		l.rpos = len(l.rbuf)
	}
	return n
}

// SetReadDeadline records the deadline for the next read that has to wait
// on the socket (see applyReadDeadline).
func (l *liveConn) SetReadDeadline(t time.Time) error {
	l.mu.Lock()
	l.readDeadline, l.deadlineSet = t, true
	l.mu.Unlock()
	return nil
}

// SetDeadline sets the write deadline at once and the read deadline as
// SetReadDeadline does.
func (l *liveConn) SetDeadline(t time.Time) error {
	_ = l.SetReadDeadline(t)
	return l.Conn.SetWriteDeadline(t)
}

// applyReadDeadline sets the recorded read deadline on the connection, if
// it changed since it was last set there.
func (l *liveConn) applyReadDeadline() error {
	l.mu.Lock()
	t, set := l.readDeadline, l.deadlineSet
	l.deadlineSet = false
	l.mu.Unlock()
	if !set {
		return nil
	}
	return l.Conn.SetReadDeadline(t)
}
