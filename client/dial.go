package client

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
)

// Dialing: a connection per generation, its credentials, and the redial
// after a local expiry.

func (c *Client) nextGenLocked() uint64 {
	c.gen++
	c.connReady = make(chan struct{})
	return c.gen
}

// dial opens the connection of generation gen (without holding c.mu) and
// installs it unless it was superseded meanwhile. Names are not resolved
// here but at each dial (see hostList), so a server name that does not
// resolve yet is a failed dial that go-zookeeper retries, not an error.
// Every connection is wrapped in a liveConn, beneath the user's Dialer.
func (c *Client) dial(gen uint64) error {
	if useGozk() {
		return c.dialGozk(gen)
	}
	hosts := &hostList{}
	if err := hosts.Init(c.cfg.servers); err != nil {
		return invalidArg("connect to %v: %v", c.cfg.servers, err)
	}
	ref := &connRef{ready: make(chan struct{})}
	userDial := c.cfg.dialer
	w := wire.Dial(wire.Config{
		Hosts:          hosts,
		SessionTimeout: c.cfg.sessionTimeout,
		Dial: func(network, address string, timeout time.Duration) (net.Conn, error) {
			raw, err := userDial(network, address, timeout)
			if err != nil {
				c.dialFailed(gen, address, err)
				return nil, err
			}
			if raw == nil {
				return nil, fmt.Errorf("zkrecipes: dialer returned no connection to %s", address)
			}
			return c.watchFirstReply(gen, address, raw), nil
		},
		Event:  func(ev zk.Event, zxid int64) { c.onEvent(gen, ref, ev, zxid) },
		Logger: c.log,
	})
	ref.own = w
	return c.install(gen, ref, w)
}

// dialGozk is dial on go-zookeeper's connection (ZKRECIPES_TRANSPORT=gozk).
func (c *Client) dialGozk(gen uint64) error {
	ref := &connRef{ready: make(chan struct{})}
	userDial := c.cfg.dialer
	conn, _, err := zk.Connect(c.cfg.servers, c.cfg.sessionTimeout,
		zk.WithHostProvider(&hostList{}),
		zk.WithDialer(func(network, address string, timeout time.Duration) (net.Conn, error) {
			raw, err := userDial(network, address, timeout)
			if err != nil {
				c.dialFailed(gen, address, err)
				return nil, err
			}
			if raw == nil {
				return nil, fmt.Errorf("zkrecipes: dialer returned no connection to %s", address)
			}
			raw = c.watchFirstReply(gen, address, raw)
			// On go-zookeeper's connection goroutine, before the handshake:
			// this connection will re-send the sentinel (see seed.go).
			<-ref.ready
			ref.seeded.Store(seedSentinel(ref.gz))
			hooked := hookSetWatches(ref.gz, ref.setWatchesRead)
			l := newLiveConn(raw, c.log, ref.setTimeout, ref.holdFor)
			l.releaseOnWrite = !hooked
			ref.live.Store(l)
			return l, nil
		}),
		zk.WithEventCallback(func(ev zk.Event) { c.onEvent(gen, ref, ev, -1) }),
		zk.WithLogger(zkLogger{c.log}),
		zk.WithLogInfo(false),
	)
	if err != nil { // no server at all: New rejects that, a zero Client has none
		return invalidArg("connect to %v: %v", c.cfg.servers, err)
	}
	ref.gz = conn
	return c.install(gen, ref, gozkConn{conn})
}

// install makes conn, the connection of generation gen, the client's,
// unless it was superseded meanwhile, and sends the credentials on it.
func (c *Client) install(gen uint64, ref *connRef, conn transport) error {
	ref.conn = conn
	close(ref.ready)

	c.mu.Lock()
	if c.closed || c.gen != gen {
		c.mu.Unlock()
		conn.Close()
		return ErrClosed
	}
	c.conn = conn
	ready := c.connReady
	if len(c.cfg.auth) == 0 {
		close(ready)
	} else {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.authenticate(gen, conn)
			close(ready)
		}()
	}
	c.mu.Unlock()
	return nil
}

// connRef lets a connection's event callback reach the connection, which
// zk.Connect returns only after the callback may already have been called,
// and the session timeout its latest connect response negotiated.
type connRef struct {
	conn    transport
	own     *wire.Conn // the connection when it is the client's own (not go-zookeeper's)
	gz      *zk.Conn   // the connection when it is go-zookeeper's
	ready   chan struct{}
	timeout atomic.Int64 // negotiated session timeout, as a time.Duration
	// sentinel is the session whose sentinel watch this connection holds
	// (see sentinel.go), or 0.
	sentinel atomic.Int64
	arming   bool // a sentinel request is under way (guarded by Client.mu)
	// seeded is whether the latest dial put the sentinel into
	// go-zookeeper's watcher table (see seed.go).
	seeded atomic.Bool
	// live is the liveConn of the newest dial: the one go-zookeeper's
	// connection goroutine works on when it calls setWatchesRead.
	live atomic.Pointer[liveConn]
}

// setWatchesRead ends the newest connection's hold: go-zookeeper has read
// its last zxid for that connection's setWatches (see hookSetWatches).
func (r *connRef) setWatchesRead() {
	if l := r.live.Load(); l != nil {
		l.setWatchesRead()
	}
}

func (r *connRef) setTimeout(d time.Duration) { r.timeout.Store(int64(d)) }

// negotiated is the session timeout the latest connect response granted.
func (r *connRef) negotiated() time.Duration {
	if r.own != nil {
		return r.own.NegotiatedTimeout()
	}
	return time.Duration(r.timeout.Load())
}

// holdFor reports whether a connection to session sid (new or resumed)
// must hold back the server's replies until go-zookeeper has re-sent its
// watches: always when the dial seeded the sentinel, else when the
// connection resumed a session whose sentinel a request set.
func (r *connRef) holdFor(sid int64) bool {
	return sid != 0 && (r.seeded.Load() || r.sentinel.Load() == sid)
}

// authenticate sends the credentials before the connection carries any other
// request; go-zookeeper re-sends them itself on every reconnect.
func (c *Client) authenticate(gen uint64, conn transport) {
	for _, a := range c.cfg.auth {
		for {
			err := conn.AddAuth(bg, a.scheme, a.auth)
			if err == nil {
				break
			}
			c.mu.Lock()
			stale := c.closed || c.gen != gen
			c.mu.Unlock()
			if stale || errors.Is(err, zk.ErrAuthFailed) {
				if errors.Is(err, zk.ErrAuthFailed) {
					c.log.Error("zookeeper rejected the credentials", "scheme", a.scheme)
				}
				return
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-c.closedCh:
				return
			}
		}
	}
}

// redial opens the connection of generation gen after a local expiry. A
// failed dial is retried with the retry policy's sleeps (from the start of
// the policy again once it gives up, or every second if it never sleeps):
// the client keeps trying until it has a connection again, gen is
// superseded, or Close.
func (c *Client) redial(gen uint64) {
	var b backoff.BackOff
	for attempt := 1; ; attempt++ {
		err := c.dial(gen)
		if err == nil || errors.Is(err, ErrClosed) {
			return
		}
		c.mu.Lock()
		stale := c.closed || c.gen != gen
		c.mu.Unlock()
		if stale {
			return
		}
		if b == nil {
			b = c.cfg.policy.NewBackOff()
		}
		sleep := b.NextBackOff()
		if sleep == backoff.Stop {
			b.Reset()
			if sleep = b.NextBackOff(); sleep == backoff.Stop {
				sleep = time.Second
			}
		}
		sleep = max(sleep, redialFloor)
		c.log.Error("reconnect after local expiry failed; retrying", "attempt", attempt, "err", err, "sleep", sleep)
		t := time.NewTimer(sleep)
		select {
		case <-t.C:
		case <-c.closedCh:
			t.Stop()
			return
		}
	}
}
