package client

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// A guard against a data race inside go-zookeeper (its issue #260): when a
// connection resumes a session, go-zookeeper reads the last zxid it saw to
// re-send its watches (sendSetWatches) on one goroutine while its receive
// loop, already started, may write that zxid on another, as soon as the
// reply to any request queued meanwhile arrives. Harmless in practice, it
// fails every test run under -race that happens to hit it.
//
// The read happens only when go-zookeeper has watches to re-send, and always
// before the setWatches request is written. So the client makes sure it
// always has one (the sentinel: an existence watch on a node that cannot
// exist, since nobody may create nodes under /zookeeper), and the liveConn
// of a connection that resumes a session holding the sentinel passes no
// reply that carries a zxid on to go-zookeeper until it has seen
// setWatches written (see hold.go; pings, notifications and the replies to
// re-sent credentials pass). That orders the read before every write, for
// the race detector too. A session's first connection used to hold nothing,
// on the reasoning that go-zookeeper then has no watches and reads nothing;
// but the sentinel's own reply can be handled before go-zookeeper's
// connection goroutine reaches its re-send, which then reads the zxid
// unordered (it failed a loaded CI run). So each dial now also seeds the
// sentinel into go-zookeeper's watcher table (seed.go): every connection,
// the first included, then re-sends it, and every connection holds. And
// the hold ends when go-zookeeper calls its setWatches callback, hooked at
// the dial too (seed.go), just after its read: the first setWatches
// written may be one the previous connection left queued, written before
// this connection's read (that also failed a loaded CI run). Without the
// hook, the hold ends on the first setWatches written, as before.
//
// Requests wait (see Conn) until the sentinel is set on each new session,
// so no watch of ours can exist on a session without it.

// sentinelPath is the node the sentinel watch waits for (an absolute path,
// outside any namespace).
const sentinelPath = "/zookeeper/zkrecipes-sentinel-never-created"

// opSetWatches is go-zookeeper's opcode for setWatches.
const opSetWatches = 101

// upLocked makes the client usable on session sid of connection ref: at
// once when the connection holds the session's sentinel, else once a
// request has set it.
func (c *Client) upLocked(gen uint64, ref *connRef, sid int64) {
	if c.sess == nil || c.sess.id != sid || c.sess.ended() {
		return
	}
	if ref.own != nil || ref.sentinel.Load() == sid {
		// The client's own connection has no race to guard against.
		c.markUpLocked()
		return
	}
	if ref.arming {
		return // the request under way ends one way or another
	}
	ref.arming = true
	c.wg.Add(1) // under c.mu, before Close's Wait
	go func() {
		defer c.wg.Done()
		_, _, _, err := ref.conn.ExistsW(bg, sentinelPath)
		c.mu.Lock()
		defer c.mu.Unlock()
		ref.arming = false
		if c.closed || gen != c.gen || c.sess == nil || c.sess.id != sid || c.sess.ended() {
			return
		}
		switch {
		case err == nil:
			ref.sentinel.Store(sid)
		case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrClosing), errors.Is(err, zk.ErrSessionExpired):
			// The connection went: the next HasSession tries again, unless
			// it came back already, before this reply was failed.
			if c.state == StateConnected || c.state == StateReconnected {
				c.upLocked(gen, ref, sid)
			}
			return
		default:
			c.log.Warn("could not set the sentinel watch; go-zookeeper's setWatches race stays possible", "err", err)
		}
		if c.state == StateConnected || c.state == StateReconnected {
			c.markUpLocked()
		}
	}()
}

func (c *Client) markUpLocked() {
	if !isClosedChan(c.upCh) {
		close(c.upCh)
	}
}
