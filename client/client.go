package client

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Client is a ZooKeeper session manager: it owns one connection at a time
// (its own: see internal/wire), turns its connection events into Curator's four states, keeps an
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
	givenUp   atomic.Int64 // guaranteed deletes the server refused for good
	// persistMu serialises the server requests of persistent watches
	// (AddWatch, Remove, setting them again on a new session).
	persistMu sync.Mutex
	// noAddWatch is set once a server answered addWatch as an unknown
	// request (before ZooKeeper 3.6): AddWatch then fails at once.
	noAddWatch atomic.Bool

	mu          sync.Mutex
	started     bool
	closed      bool
	gen         uint64        // generation of the current connection; events of older ones are ignored
	conn        *wire.Conn    // nil while (re)dialing
	connReady   chan struct{} // closed once conn may carry requests (credentials sent)
	state       State         // zero until the first session
	stateSince  time.Time     // when state was published
	sess        *Session
	sessChanged chan struct{} // closed and replaced whenever sess changes
	discCh      chan struct{} // closed when the connection is lost; replaced when it is back
	upCh        chan struct{} // closed while a session's connection is up; replaced when it is lost
	expiry      *time.Timer
	starting    *startWatch   // while Start waits for the first session, else nil
	negotiated  time.Duration // session timeout the server granted; 0 until the first session
	subs        map[*pubsub.Sub[StateChange]]struct{}
	nodeSubs    map[*nodeSub]struct{} // NodeEvents' subscribers
	persist     map[*PersistentWatch]struct{}

	watches watchSet // GetWatch's shared data watches

	lossWatches []*access.LossWatch // see losswatch.go
}

// New validates the options and returns a Client. It does no I/O: call Start.
func New(opts ...Option) (*Client, error) {
	cfg := config{sessionTimeout: DefaultSessionTimeout, policy: retry.Default()}
	for _, o := range opts {
		if o == nil {
			return nil, errs.Invalid("nil option")
		}
		o(&cfg)
	}
	if len(cfg.errs) > 0 {
		return nil, cfg.errs[0]
	}
	if len(cfg.servers) == 0 {
		return nil, errs.Invalid("no ZooKeeper servers given")
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
	cfg.base = cfg.dialer
	if cfg.tls != nil {
		cfg.dialer = tlsDialer(cfg.base, cfg.tls)
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
//
// It fails at once, with a *TLSError (errors.Is(err, ErrTLS)), when every
// server has refused the connection for TLS's sake for a reason that will
// not pass by itself (see WithTLS): a certificate that does not verify, a
// client certificate the server refused, a plain port dialled with TLS or
// a TLS port without it. When ctx ends first, the error wraps ctx's and
// the last TLS failure, if any.
func (c *Client) Start(ctx context.Context) error {
	if c == nil || c.closedCh == nil {
		return errZeroClient()
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	if c.started {
		c.mu.Unlock()
		return errAlreadyStarted
	}
	c.started = true
	gen := c.nextGenLocked()
	sw := newStartWatch()
	c.starting = sw
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.starting == sw {
			c.starting = nil
		}
		c.mu.Unlock()
	}()

	if err := c.dial(gen); err != nil {
		c.mu.Lock()
		c.started = false
		c.mu.Unlock()
		return err
	}
	var refused error
	select {
	case <-c.firstSess:
		c.awaitUp(ctx)
		return nil
	case <-c.closedCh:
		return errClosed
	case <-ctx.Done():
	case refused = <-sw.fail:
	}
	c.mu.Lock()
	if c.sess != nil { // the session won the race with ctx
		c.mu.Unlock()
		return nil
	}
	last := sw.last
	conn := c.conn
	c.conn = nil
	c.started = false
	c.nextGenLocked()
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	switch {
	case refused != nil:
		return fmt.Errorf("zkrecipes: start: no session with %v: %w", c.cfg.servers, refused)
	case last != nil:
		return fmt.Errorf("zkrecipes: start: no session with %v: %w (last failure: %w)", c.cfg.servers, ctx.Err(), last)
	}
	return fmt.Errorf("zkrecipes: start: no session with %v: %w", c.cfg.servers, ctx.Err())
}

// awaitUp waits a little (at most upWithin, or until ctx ends) for the new
// session to be usable, its sentinel watch set (see sentinel.go), so that
// Start returns with the client's own first request done. Requests wait for
// it anyway (see Conn).
func (c *Client) awaitUp(ctx context.Context) {
	t := time.NewTimer(upWithin)
	defer t.Stop()
	select {
	case <-c.connectedSignal():
	case <-c.closedCh:
	case <-ctx.Done():
	case <-t.C:
	}
}

// upWithin bounds Start's wait for the sentinel watch.
const upWithin = 2 * time.Second

// Close ends the session (its ephemeral nodes go with it), closes every
// subscriber channel and stops every background goroutine. It is idempotent;
// afterwards every call returns zkrecipes.ErrClosed.
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
		c.sess.end(errClosed)
		c.fireLossLocked(c.sess)
	}
	conn := c.conn
	c.conn = nil
	c.nextGenLocked()
	subs, nodeSubs := c.subs, c.nodeSubs
	c.subs, c.nodeSubs = nil, nil
	c.stopPersistentLocked()
	c.mu.Unlock()

	for s := range subs {
		s.Stop()
	}
	for s := range nodeSubs {
		s.sub.Stop()
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

// Conn returns the current connection once it can carry requests
// (connected, with a session, credentials sent), for requests this package
// does not wrap or that must not be retried. Paths given to it are not
// namespaced and its calls are not retried.
func (c *Client) Conn(ctx context.Context) (*Conn, error) {
	conn, _, err := c.connUp(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{t: conn, acl: c.aclFor}, nil
}

// connUp is Conn that also returns the channel that marks the connection's
// up period (c.upCh, closed while up, replaced when the connection is
// lost): the same channel means no reconnect in between.
func (c *Client) connUp(ctx context.Context) (*wire.Conn, <-chan struct{}, error) {
	if c == nil || c.closedCh == nil {
		return nil, nil, errZeroClient()
	}
	var conn *wire.Conn
	var up <-chan struct{}
	err := c.waitUntil(ctx, func() (bool, <-chan struct{}) {
		// While (re)dialing, conn is nil and connReady is the next
		// connection's: wait for it. While disconnected, wait for the
		// session to be back: a request made now would fail at once for
		// want of a connection.
		conn = c.conn
		switch {
		case conn == nil || !isClosedChan(c.connReady):
			return false, c.connReady
		case !isClosedChan(c.upCh):
			return false, c.upCh
		}
		up = c.upCh
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return conn, up, nil
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
			return errClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// usableLocked reports why the client cannot serve a call, if it cannot.
func (c *Client) usableLocked() error {
	switch {
	case c.closed:
		return errClosed
	case !c.started:
		return errNotStarted
	}
	return nil
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
