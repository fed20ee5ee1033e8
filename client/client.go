package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Client is a ZooKeeper session manager: it owns one connection at a time,
// turns go-zookeeper's connection events into Curator's four states, keeps an
// epoch (*Session) per ZooKeeper session, and retries operations under a
// policy. A Client is safe for concurrent use.
type Client struct {
	cfg config
	log *slog.Logger
	acl []zk.ACL

	closedCh  chan struct{}
	firstSess chan struct{}
	wg        sync.WaitGroup
	pending   atomic.Int64 // guaranteed deletes still running

	mu          sync.Mutex
	started     bool
	closed      bool
	gen         uint64        // generation of the current connection; events of older ones are ignored
	conn        *zk.Conn      // nil while (re)dialing
	connReady   chan struct{} // closed once conn may carry requests (credentials sent)
	state       State         // zero until the first session
	sess        *Session
	sessChanged chan struct{} // closed and replaced whenever sess changes
	discCh      chan struct{} // closed when the connection is lost; replaced when it is back
	upCh        chan struct{} // closed while a session's connection is up; replaced when it is lost
	expiry      *time.Timer
	negotiated  time.Duration // session timeout the server granted; 0 until the first session
	subs        map[*subscriber]struct{}
}

// New validates the options and returns a Client. It does no I/O: call Start.
func New(opts ...Option) (*Client, error) {
	cfg := config{sessionTimeout: DefaultSessionTimeout, policy: retry.Default()}
	for _, o := range opts {
		if o == nil {
			return nil, invalidArg("nil option")
		}
		o(&cfg)
	}
	if len(cfg.errs) > 0 {
		return nil, cfg.errs[0]
	}
	if len(cfg.servers) == 0 {
		return nil, invalidArg("no ZooKeeper servers given")
	}
	for _, s := range cfg.servers {
		if err := checkServer(s); err != nil {
			return nil, err
		}
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	if cfg.dialer == nil {
		cfg.dialer = net.DialTimeout
	}
	return &Client{
		cfg:         cfg,
		log:         cfg.logger,
		acl:         cfg.createACL(),
		closedCh:    make(chan struct{}),
		firstSess:   make(chan struct{}),
		sessChanged: make(chan struct{}),
		discCh:      closedChan(),
		upCh:        make(chan struct{}),
	}, nil
}

// Start connects and returns once the first session is established
// (StateConnected) or ctx ends. A Start that fails may be called again.
func (c *Client) Start(ctx context.Context) error {
	if c == nil || c.closedCh == nil {
		return errZeroClient()
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.started {
		c.mu.Unlock()
		return ErrAlreadyStarted
	}
	c.started = true
	gen := c.nextGenLocked()
	c.mu.Unlock()

	if err := c.dial(gen); err != nil {
		c.mu.Lock()
		c.started = false
		c.mu.Unlock()
		return err
	}
	select {
	case <-c.firstSess:
		return nil
	case <-c.closedCh:
		return ErrClosed
	case <-ctx.Done():
	}
	c.mu.Lock()
	if c.sess != nil { // the session won the race with ctx
		c.mu.Unlock()
		return nil
	}
	conn := c.conn
	c.conn = nil
	c.started = false
	c.nextGenLocked()
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	return fmt.Errorf("zkrecipes/client: start: no session with %v: %w", c.cfg.servers, ctx.Err())
}

// Close ends the session (its ephemeral nodes go with it), closes every
// subscriber channel and stops every background goroutine. It is idempotent;
// afterwards every call returns ErrClosed.
func (c *Client) Close() error {
	if c == nil || c.closedCh == nil {
		return errZeroClient()
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.closedCh)
	c.markDisconnectedLocked()
	c.stopExpiryLocked()
	if c.sess != nil {
		c.sess.end(ErrClosed)
	}
	conn := c.conn
	c.conn = nil
	c.nextGenLocked()
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()

	for s := range subs {
		s.stop()
	}
	if conn != nil {
		conn.Close()
	}
	c.wg.Wait()
	return nil
}

// State returns the last published state (zero before the first session).
func (c *Client) State() State {
	if c == nil || c.closedCh == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Session returns the current session, or nil before the first one. The
// session returned may already be Done: after Lost and until a new session is
// established, the lost one stays current.
func (c *Client) Session() *Session {
	if c == nil || c.closedCh == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// WaitSession returns a session that has not ended, waiting for one if the
// current session was lost and no new one is established yet.
func (c *Client) WaitSession(ctx context.Context) (*Session, error) {
	if c == nil || c.closedCh == nil {
		return nil, errZeroClient()
	}
	var s *Session
	err := c.waitUntil(ctx, func() (bool, <-chan struct{}) {
		s = c.sess
		return s != nil && !s.ended(), c.sessChanged
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// SessionTimeout is the session timeout the server negotiated (it clamps
// the one asked for with WithSessionTimeout to its own minimum and maximum),
// once a session was established; before that, the one asked for. Local
// expiry and the liveness watchdog (see the package documentation) run on
// the negotiated value.
func (c *Client) SessionTimeout() time.Duration {
	if c == nil || c.closedCh == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionTimeoutLocked()
}

func (c *Client) sessionTimeoutLocked() time.Duration {
	if c.negotiated > 0 {
		return c.negotiated
	}
	return c.cfg.sessionTimeout
}

// Namespace is the absolute path every path given to the client is under ("" for none).
func (c *Client) Namespace() string {
	if c == nil || c.closedCh == nil {
		return ""
	}
	return c.cfg.namespace
}

// Logger is the client's logger, for recipes built on it.
func (c *Client) Logger() *slog.Logger {
	if c == nil || c.closedCh == nil {
		return slog.Default()
	}
	return c.log
}

// Conn returns the underlying go-zookeeper connection once it can carry
// requests (connected, with a session, credentials sent), for operations
// this package does not wrap. Paths given to it are
// not namespaced and its calls are not retried.
func (c *Client) Conn(ctx context.Context) (*zk.Conn, error) {
	if c == nil || c.closedCh == nil {
		return nil, errZeroClient()
	}
	var conn *zk.Conn
	err := c.waitUntil(ctx, func() (bool, <-chan struct{}) {
		// While (re)dialing, conn is nil and connReady is the next
		// connection's: wait for it. While disconnected, wait for the
		// session to be back: a request handed to go-zookeeper now would
		// sit in its queue and go out on whatever session comes next (even
		// a new one), ahead of its watch re-registration.
		conn = c.conn
		switch {
		case conn == nil || !isClosedChan(c.connReady):
			return false, c.connReady
		case !isClosedChan(c.upCh):
			return false, c.upCh
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return conn, nil
}

// waitUntil calls ready with c.mu held until it reports true, waiting
// between calls for the channel it returns, the client's Close or ctx.
func (c *Client) waitUntil(ctx context.Context, ready func() (bool, <-chan struct{})) error {
	for {
		c.mu.Lock()
		if err := c.usableLocked(); err != nil {
			c.mu.Unlock()
			return err
		}
		ok, wake := ready()
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-wake:
		case <-c.closedCh:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// usableLocked reports why the client cannot serve a call, if it cannot.
func (c *Client) usableLocked() error {
	switch {
	case c.closed:
		return ErrClosed
	case !c.started:
		return ErrNotStarted
	}
	return nil
}

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
	ref := &connRef{ready: make(chan struct{})}
	userDial := c.cfg.dialer
	conn, _, err := zk.Connect(c.cfg.servers, c.cfg.sessionTimeout,
		zk.WithHostProvider(&hostList{}),
		zk.WithDialer(func(network, address string, timeout time.Duration) (net.Conn, error) {
			raw, err := userDial(network, address, timeout)
			if err != nil {
				return nil, err
			}
			if raw == nil {
				return nil, fmt.Errorf("zkrecipes/client: dialer returned no connection to %s", address)
			}
			return newLiveConn(raw, c.log, ref.setTimeout), nil
		}),
		zk.WithEventCallback(func(ev zk.Event) { c.onEvent(gen, ref, ev) }),
		zk.WithLogger(zkLogger{c.log}),
		zk.WithLogInfo(false),
	)
	if err != nil { // no server at all: New rejects that, a zero Client has none
		return invalidArg("connect to %v: %v", c.cfg.servers, err)
	}
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
	conn    *zk.Conn
	ready   chan struct{}
	timeout atomic.Int64 // negotiated session timeout, as a time.Duration
}

func (r *connRef) setTimeout(d time.Duration) { r.timeout.Store(int64(d)) }

// authenticate sends the credentials before the connection carries any other
// request; go-zookeeper re-sends them itself on every reconnect.
func (c *Client) authenticate(gen uint64, conn *zk.Conn) {
	for _, a := range c.cfg.auth {
		for {
			err := conn.AddAuth(a.scheme, a.auth)
			if err == nil {
				break
			}
			c.mu.Lock()
			stale := c.closed || c.gen != gen
			c.mu.Unlock()
			if stale || err == zk.ErrAuthFailed {
				if err == zk.ErrAuthFailed {
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

// onEvent is go-zookeeper's event callback. It runs on the connection's own
// goroutine, so it only updates state and queues notifications: no I/O.
func (c *Client) onEvent(gen uint64, ref *connRef, ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	var sid int64
	var negotiated time.Duration
	if ev.State == zk.StateHasSession {
		<-ref.ready
		sid = ref.conn.SessionID() // exact: set just before this event
		// Read by the liveConn from the connect response, just before this event.
		negotiated = time.Duration(ref.timeout.Load())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || gen != c.gen {
		return
	}
	switch ev.State {
	case zk.StateHasSession:
		if negotiated > 0 {
			c.negotiated = negotiated
		}
		c.onSessionLocked(sid)
	case zk.StateDisconnected:
		if c.sess != nil && !c.sess.ended() && c.state != StateSuspended {
			c.publishLocked(StateSuspended, c.sess.id)
			c.startExpiryLocked(gen, c.sess)
		}
	case zk.StateExpired:
		if c.sess != nil && !c.sess.ended() {
			c.log.Warn("zookeeper expired the session", "session", sessionHex(c.sess.id))
			c.loseLocked()
		}
	case zk.StateAuthFailed:
		c.log.Error("zookeeper authentication failed")
	}
}

func (c *Client) onSessionLocked(sid int64) {
	c.stopExpiryLocked()
	switch {
	case c.sess == nil:
		c.setSessionLocked(newSession(sid))
		c.publishLocked(StateConnected, sid)
		close(c.firstSess)
	case c.sess.id == sid && !c.sess.ended():
		if c.state == StateSuspended {
			c.publishLocked(StateReconnected, sid)
		}
	default:
		if !c.sess.ended() { // a new session without an expiry event: the old one is gone
			c.loseLocked()
		}
		c.setSessionLocked(newSession(sid))
		c.publishLocked(StateReconnected, sid)
	}
}

func (c *Client) setSessionLocked(s *Session) {
	c.sess = s
	close(c.sessChanged)
	c.sessChanged = make(chan struct{})
}

func (c *Client) loseLocked() {
	c.stopExpiryLocked()
	c.sess.end(ErrSessionLost)
	c.publishLocked(StateLost, c.sess.id)
	close(c.sessChanged)
	c.sessChanged = make(chan struct{})
}

func (c *Client) publishLocked(s State, sid int64) {
	c.state = s
	switch s {
	case StateSuspended, StateLost:
		c.markDisconnectedLocked()
		if isClosedChan(c.upCh) {
			c.upCh = make(chan struct{})
		}
	case StateConnected, StateReconnected:
		if isClosedChan(c.discCh) {
			c.discCh = make(chan struct{})
		}
		if !isClosedChan(c.upCh) {
			close(c.upCh)
		}
	}
	ev := StateChange{State: s, SessionID: sid, Time: time.Now()}
	c.log.Info("zookeeper connection state", "state", s.String(), "session", sessionHex(sid))
	for sub := range c.subs {
		sub.push(ev)
	}
}

// startExpiryLocked arms the local expiry: Curator's rule that a client which
// has been Suspended for a whole (negotiated) session timeout must assume the
// server has expired its session, so that a partitioned process learns it
// even though no server can tell it.
func (c *Client) startExpiryLocked(gen uint64, s *Session) {
	c.stopExpiryLocked()
	c.expiry = time.AfterFunc(c.sessionTimeoutLocked(), func() { c.expireLocally(gen, s) })
}

func (c *Client) stopExpiryLocked() {
	if c.expiry != nil {
		c.expiry.Stop()
		c.expiry = nil
	}
}

func (c *Client) expireLocally(gen uint64, s *Session) {
	c.mu.Lock()
	if c.closed || c.gen != gen || c.sess != s || s.ended() || c.state != StateSuspended {
		c.mu.Unlock()
		return
	}
	c.log.Warn("no connection for a whole session timeout: giving the session up",
		"session", sessionHex(s.id), "timeout", c.sessionTimeoutLocked())
	c.loseLocked()
	// The old connection could still resume the dead session if the server
	// had not expired it yet: replace it, so that what we declared lost stays lost.
	old := c.conn
	c.conn = nil
	next := c.nextGenLocked()
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		if old != nil {
			old.Close()
		}
		c.redial(next)
	}()
}

// redialFloor bounds how fast redial retries, whatever the retry policy says.
const redialFloor = 100 * time.Millisecond

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

// Disconnected returns a channel that is closed the next time the connection
// is lost (Suspended or Lost), or by Close. While the client is disconnected,
// or before its first session, the channel returned is already closed. A lock
// holder takes it before the listing that grants it the lock, so it cannot
// miss a suspension that happened after that listing.
func (c *Client) Disconnected() <-chan struct{} {
	if c == nil || c.closedCh == nil {
		return closedChan()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.discCh
}

// connectedSignal returns a channel that is closed while (or as soon as) the
// client has a session with a live connection.
func (c *Client) connectedSignal() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.upCh
}

func (c *Client) markDisconnectedLocked() {
	if !isClosedChan(c.discCh) {
		close(c.discCh)
	}
}

func closedChan() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// isClosedChan reports whether ch is closed: the package's one such helper.
func isClosedChan[C ~chan struct{} | ~<-chan struct{}](ch C) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func sessionHex(id int64) string { return fmt.Sprintf("0x%x", uint64(id)) }
