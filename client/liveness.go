package client

import (
	"encoding/binary"
	"log/slog"
	"net"
	"sync"
	"time"
)

// liveFraction is the share of the negotiated session timeout after which a
// connection that got no reply to anything sent since is dropped: the
// client is then Suspended (and every holder's Lost closes) at least
// (1 - liveFraction) x T before the server can expire the session. See the
// package documentation.
const (
	liveNum = 2
	liveDen = 3
)

// liveConn wraps every connection the client dials, beneath the user's
// Dialer. It reads only the frame headers going by, in both directions, to
// learn (a) the session timeout the server negotiated, from the connect
// response, and (b) lastAcked: when the latest request (or ping, or the
// connect request) whose reply has arrived was sent. Its watchdog closes the
// connection once lastAcked + 2/3 x negotiated has passed, whatever else the
// server sent meanwhile (watch notifications keep go-zookeeper's own read
// deadline sliding, but prove nothing about what the server received from
// us, which is all its expiry clock counts).
type liveConn struct {
	net.Conn
	log *slog.Logger
	// negotiated is told the session timeout of the connect response.
	negotiated func(time.Duration)
	// holdFor says whether a connect response to this session makes the
	// connection hold back replies (see sentinel.go).
	holdFor func(sid int64) bool

	mu        sync.Mutex
	out       frameScanner // client to server
	in        frameScanner // server to client
	pending   []sentFrame  // requests awaiting their reply, in send order
	connectAt time.Time    // when the connect request went out
	timeout   time.Duration
	limit     time.Duration // liveNum/liveDen x timeout; 0 until the connect response
	lastAcked time.Time
	timer     *time.Timer
	closed    bool
	done      chan struct{} // closed by Close
	// release, once made (by a connect response for which holdFor said
	// so), is closed once go-zookeeper has read its last zxid for this
	// connection's setWatches (setWatchesRead; or, unhooked, once a
	// setWatches is written): until then Read holds back every reply that
	// could make go-zookeeper write its last zxid (see hold.go).
	release  chan struct{}
	released bool
	// releaseOnWrite ends the hold when a setWatches is written, for a
	// client that could not hook go-zookeeper's read (see hookSetWatches);
	// set before the connection is used.
	releaseOnWrite bool
	held           []byte // read from the connection while holding, not yet passed on
	passLeft       int64  // how many bytes from held's start may be passed on now

	// Buffered reads (see liveread.go). rmu serialises readers; rbuf[rpos:]
	// is read from the connection and not yet passed on (guarded by mu).
	rmu  sync.Mutex
	rbuf []byte
	rpos int
	// The read deadline go-zookeeper last set, applied to the connection
	// only before a read that has to wait for it (guarded by mu).
	readDeadline time.Time
	deadlineSet  bool
}

// sentFrame is one request whose reply has not arrived yet.
type sentFrame struct {
	xid int32
	at  time.Time
}

// Frame header sizes: a request starts with xid and opcode; a reply or
// notification with xid, zxid and err (only xid is needed); the connect
// response with protocolVersion, timeOut (ms) and sessionID.
const (
	requestHeaderLen  = 8
	replyHeaderLen    = 4
	connectRespHdrLen = 16
	notificationXid   = -1
)

func newLiveConn(raw net.Conn, log *slog.Logger, negotiated func(time.Duration), holdFor func(sid int64) bool) *liveConn {
	return &liveConn{
		Conn:           raw,
		log:            log,
		negotiated:     negotiated,
		holdFor:        holdFor,
		done:           make(chan struct{}),
		releaseOnWrite: true,
		out:            frameScanner{firstHdr: 0, restHdr: requestHeaderLen},
		in:             frameScanner{firstHdr: connectRespHdrLen, restHdr: replyHeaderLen},
	}
}

// Write records the send time of every request that starts in p, then
// writes p. A request is timed from before its first byte is written: the
// server cannot have received it earlier.
func (l *liveConn) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	l.out.feed(p, now, l.sentLocked)
	l.mu.Unlock()
	return l.Conn.Write(p)
}

// Close stops the watchdog and closes the connection.
func (l *liveConn) Close() error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.done)
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	return l.Conn.Close()
}

func (l *liveConn) sentLocked(hdr []byte, index int, start time.Time) {
	if index == 0 {
		l.connectAt = start
		return
	}
	if l.releaseOnWrite && len(hdr) >= requestHeaderLen && int32(binary.BigEndian.Uint32(hdr[4:8])) == opSetWatches {
		l.releaseLocked()
	}
	l.pending = append(l.pending, sentFrame{xid: int32(binary.BigEndian.Uint32(hdr)), at: start})
}

func (l *liveConn) receivedLocked(hdr []byte, index int, _ time.Time) {
	if index == 0 {
		if len(hdr) < connectRespHdrLen {
			return
		}
		ms := int32(binary.BigEndian.Uint32(hdr[4:8]))
		sid := int64(binary.BigEndian.Uint64(hdr[8:16]))
		if sid != 0 && ms > 0 && !l.connectAt.IsZero() {
			l.armLocked(time.Duration(ms) * time.Millisecond)
		}
		if l.holdFor != nil && l.holdFor(sid) && l.release == nil {
			l.startHoldLocked()
		}
		return
	}
	if len(hdr) < replyHeaderLen {
		return
	}
	xid := int32(binary.BigEndian.Uint32(hdr))
	if xid == notificationXid {
		return // a watch notification: not a reply to anything we sent
	}
	for i, f := range l.pending {
		if f.xid != xid {
			continue
		}
		if f.at.After(l.lastAcked) {
			l.lastAcked = f.at
		}
		// ZooKeeper answers a session's requests in order: anything sent
		// before this one and still unmatched will not be, and forgetting
		// it only keeps lastAcked earlier.
		l.pending = append(l.pending[:0], l.pending[i+1:]...)
		return
	}
}

// armLocked starts the watchdog once the connect response told the
// negotiated timeout; the connect request counts as the first acknowledged send.
func (l *liveConn) armLocked(timeout time.Duration) {
	if l.closed || l.timer != nil {
		return
	}
	l.timeout = timeout
	l.limit = timeout * liveNum / liveDen
	l.lastAcked = l.connectAt
	if l.negotiated != nil {
		l.negotiated(timeout)
	}
	l.timer = time.AfterFunc(time.Until(l.lastAcked.Add(l.limit)), l.check)
}

// check is the watchdog: it re-arms while replies keep acknowledging newer
// sends, and closes the connection once none acknowledged anything sent in
// the last liveNum/liveDen of the session timeout. go-zookeeper then reports
// the connection lost (the client is Suspended) and reconnects.
func (l *liveConn) check() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	if wait := time.Until(l.lastAcked.Add(l.limit)); wait > 0 {
		l.timer.Reset(wait)
		l.mu.Unlock()
		return
	}
	since, timeout := time.Since(l.lastAcked), l.timeout
	l.mu.Unlock()
	l.log.Warn("no reply to anything sent for 2/3 of the session timeout: dropping the connection before the server can expire the session",
		"since_last_acknowledged_send", since, "session_timeout", timeout)
	_ = l.Close()
}

// frameScanner follows one direction of a ZooKeeper byte stream across
// Read or Write calls: each frame is a 4-byte big-endian length and that
// many bytes. It collects the first bytes of each frame (firstHdr for the
// connection's first frame, the connect request or response; restHdr for
// the others; fewer if the frame is shorter) and skips the rest.
type frameScanner struct {
	firstHdr, restHdr int

	lenBuf   [4]byte
	lenN     int
	hdr      [connectRespHdrLen]byte
	hdrN     int
	want     int       // header bytes to collect for the current frame
	reported bool      // the current frame's header was handed over
	left     int64     // bytes of the current frame after its header still to skip
	start    time.Time // when the current frame's first byte went by
	index    int       // index of the current frame on the connection
	broken   bool      // a negative length: the stream makes no sense, stop
}

// feed scans b. For each frame whose header completes, it calls fn with the
// header (valid only during the call), the frame's index on the connection
// (0 for the first) and the now of the feed in which its first byte came.
func (s *frameScanner) feed(b []byte, now time.Time, fn func(hdr []byte, index int, start time.Time)) {
	for !s.broken {
		if s.lenN < 4 {
			if len(b) == 0 {
				return
			}
			if s.lenN == 0 {
				s.start = now
			}
			k := copy(s.lenBuf[s.lenN:], b)
			s.lenN += k
			b = b[k:]
			if s.lenN < 4 {
				return
			}
			size := int64(int32(binary.BigEndian.Uint32(s.lenBuf[:])))
			if size < 0 {
				s.broken = true
				return
			}
			want := s.restHdr
			if s.index == 0 {
				want = s.firstHdr
			}
			s.want = int(min(int64(want), size))
			s.left = size - int64(s.want)
			s.hdrN = 0
			s.reported = false
		}
		if !s.reported {
			k := copy(s.hdr[s.hdrN:s.want], b)
			s.hdrN += k
			b = b[k:]
			if s.hdrN < s.want {
				return
			}
			s.reported = true
			fn(s.hdr[:s.want], s.index, s.start)
		}
		k := min(s.left, int64(len(b)))
		b = b[k:]
		s.left -= k
		if s.left > 0 {
			return
		}
		s.index++
		s.lenN = 0
	}
}
