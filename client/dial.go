package client

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
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
// resolve yet is a failed dial that the connection retries, not an error.
// Every connection is wrapped in a liveConn, beneath the user's Dialer.
func (c *Client) dial(gen uint64) error {
	hosts := &hostList{}
	if err := hosts.Init(c.cfg.servers); err != nil {
		return errs.Invalid("connect to %v: %v", c.cfg.servers, err)
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
		Event:   func(ev zk.Event, zxid int64) { c.onEvent(gen, ref, ev, zxid) },
		Logger:  c.log,
		Request: c.cfg.hooks.requests(),
	})
	return c.install(gen, ref, w)
}

// install makes conn, the connection of generation gen, the client's,
// unless it was superseded meanwhile, and sends the credentials on it.
func (c *Client) install(gen uint64, ref *connRef, conn *wire.Conn) error {
	ref.conn = conn
	close(ref.ready)

	c.mu.Lock()
	if c.closed || c.gen != gen {
		c.mu.Unlock()
		conn.Close()
		return errClosed
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
// wire.Dial returns only after the callback may already have been called.
type connRef struct {
	conn  *wire.Conn
	ready chan struct{}
}

// authenticate sends the credentials before the connection carries any other
// request; the connection sends them again itself on every reconnect.
func (c *Client) authenticate(gen uint64, conn *wire.Conn) {
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
		if err == nil || errors.Is(err, zkrecipes.ErrClosed) {
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
