package client

import (
	"encoding/binary"
	"net"
	"time"
)

// The liveConn's hold (see sentinel.go for why): on a connection whose dial
// seeded the sentinel (seed.go), or that resumed a session holding the
// sentinel watch, replies that could make
// go-zookeeper write its last zxid (xid >= 0 with a zxid > 0) are passed on
// only once go-zookeeper has read that zxid for its setWatches (its
// callback, see hookSetWatches; without the hook, once a setWatches has
// been written). Everything else (the connect
// response, pings, watch notifications, replies with no zxid such as those
// to the credentials go-zookeeper re-sends before its send loop starts)
// goes through at once, in order: a held reply holds back what follows it.

// holdAtMost bounds how long a connection holds replies back. It never
// should: the sentinel is a watch to re-send, so setWatches follows the
// connect response at once. Were it to, replies then pass on (and the
// race is possible again) rather than starve the connection.
const holdAtMost = 5 * time.Second

// replyZxidEnd is where a reply header's zxid ends: xid (4), zxid (8).
const replyZxidEnd = 12

func (l *liveConn) startHoldLocked() {
	l.release = make(chan struct{})
	time.AfterFunc(holdAtMost, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.released && !l.closed {
			l.log.Warn("no setWatches after the connect response; passing replies on")
		}
		l.releaseLocked()
	})
}

// setWatchesRead ends the hold: go-zookeeper has read its last zxid for
// this connection's setWatches (see hookSetWatches).
func (l *liveConn) setWatchesRead() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked()
}

func (l *liveConn) releaseLocked() {
	if l.release != nil && !l.released {
		l.released = true
		close(l.release)
	}
}

// holdingLocked reports whether replies may have to be held back now.
func (l *liveConn) holdingLocked() bool {
	return l.release != nil && !l.released && l.in.index > 0
}

// readHeld serves Read while a hold is on, or while bytes read during one
// are still to be passed on; done is false when Read should simply read.
func (l *liveConn) readHeld(p []byte) (n int, err error, done bool) {
	if len(p) == 0 {
		return 0, nil, false
	}
	for {
		l.mu.Lock()
		holding := l.holdingLocked()
		if !holding && len(l.held) == 0 {
			l.mu.Unlock()
			return 0, nil, false
		}
		if !holding {
			l.passLeft = int64(len(l.held))
		} else {
			l.classifyLocked()
		}
		if avail := min(int64(len(l.held)), l.passLeft); avail > 0 {
			n = copy(p, l.held[:avail])
			l.held = l.held[n:]
			l.passLeft -= int64(n)
			l.in.feed(p[:n], time.Time{}, l.receivedLocked)
			l.mu.Unlock()
			return n, nil, true
		}
		blocked := l.passLeft == 0 && len(l.held) >= 4+replyZxidEnd
		release := l.release
		l.mu.Unlock()
		if blocked { // a reply that writes the zxid is next: wait for setWatches
			select {
			case <-release:
			case <-l.done:
				return 0, net.ErrClosed, true
			}
			continue
		}
		if err := l.applyReadDeadline(); err != nil {
			return 0, err, true
		}
		buf := make([]byte, max(len(p), 512))
		k, err := l.Conn.Read(buf)
		if k > 0 {
			l.mu.Lock()
			l.held = append(l.held, buf[:k]...)
			l.mu.Unlock()
		}
		if err != nil {
			return 0, err, true
		}
	}
}

// classifyLocked extends passLeft over the whole frames at the front of
// held (after those already passed) that cannot write the last zxid, and
// stops at the first one that can, or whose header is not all there yet.
func (l *liveConn) classifyLocked() {
	for {
		if l.passLeft > int64(len(l.held)) {
			return // the frame being passed on is not all read yet
		}
		rest := l.held[l.passLeft:]
		if len(rest) < 4+replyZxidEnd {
			return
		}
		size := int64(int32(binary.BigEndian.Uint32(rest)))
		xid := int32(binary.BigEndian.Uint32(rest[4:]))
		zxid := int64(binary.BigEndian.Uint64(rest[8:]))
		if size >= replyZxidEnd && xid >= 0 && zxid > 0 {
			return
		}
		l.passLeft += 4 + max(size, 0)
	}
}
