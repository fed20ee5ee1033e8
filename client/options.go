package client

import (
	"crypto/tls"
	"log/slog"
	"net"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Dialer opens a connection to one ZooKeeper server. It has the shape of
// go-zookeeper's zk.Dialer, so a TLS dialer or a test proxy plugs in directly.
type Dialer func(network, address string, timeout time.Duration) (net.Conn, error)

// DefaultSessionTimeout is the session timeout asked for when none is given.
const DefaultSessionTimeout = 10 * time.Second

// Option configures a Client in New.
type Option func(*config)

type config struct {
	servers        []string
	sessionTimeout time.Duration
	policy         retry.Policy
	retryExpired   bool
	namespace      string
	auth           []authEntry
	acl            []zk.ACL
	aclFor         ACLProvider
	dialer         Dialer      // every connection's: base, with TLS over it when tls is set
	base           Dialer      // WithDialer's, or net.DialTimeout
	tls            *tls.Config // WithTLS's, or nil
	logger         *slog.Logger
	hooks          *Hooks
	errs           []error
}

type authEntry struct {
	scheme string
	auth   []byte
}

// WithServers sets the ensemble's addresses ("host:port"; a missing port means 2181).
func WithServers(addrs ...string) Option {
	return func(c *config) { c.servers = append([]string(nil), addrs...) }
}

// WithSessionTimeout sets the session timeout asked of the server (default 10s).
// The server clamps it to [2, 20] x its tickTime unless configured otherwise.
func WithSessionTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.errs = append(c.errs, errs.Invalid("session timeout must be positive, got %v", d))
			return
		}
		c.sessionTimeout = d
	}
}

// WithRetryPolicy sets the policy of every retried operation (default retry.Default()).
func WithRetryPolicy(p retry.Policy) Option {
	return func(c *config) {
		if p == nil {
			c.errs = append(c.errs, errs.Invalid("nil retry policy"))
			return
		}
		c.policy = p
	}
}

// WithRetryOnSessionExpired makes operations retry after zk.ErrSessionExpired
// (on the next session). The default is not to: an operation that fails
// because its session expired reports it, since whatever the caller built on
// that session (ephemeral nodes, locks, watches) is gone and must be rebuilt
// knowingly. Curator's SessionFailedRetryPolicy makes the same choice.
func WithRetryOnSessionExpired(retry bool) Option {
	return func(c *config) { c.retryExpired = retry }
}

// WithNamespace roots every path the client is given under ns (for example
// "app" or "/app/locks"). The namespace's nodes are created on demand as
// container nodes.
func WithNamespace(ns string) Option {
	return func(c *config) {
		n, err := normalizeNamespace(ns)
		if err != nil {
			c.errs = append(c.errs, err)
			return
		}
		c.namespace = n
	}
}

// WithDigestAuth authenticates every connection with ZooKeeper's digest scheme
// and, unless WithACL is given, creates nodes with an ACL that grants all
// permissions only to this identity.
func WithDigestAuth(user, password string) Option {
	return func(c *config) {
		if user == "" {
			c.errs = append(c.errs, errs.Invalid("digest auth needs a user name"))
			return
		}
		c.auth = append(c.auth, authEntry{scheme: "digest", auth: []byte(user + ":" + password)})
	}
}

// WithACL sets the ACL of every node the client creates (default: world
// all, or "creator all" when digest auth is configured): every recipe's
// nodes and the containers made as their parents take it.
// CreatorAllWorldReadACL lets others read but not write; WithACLProvider
// chooses per path. An operation the ACLs refuse fails at once, without
// retries, with an *ACLError (errors.Is(err, ErrNoAuth)).
func WithACL(acl ...zk.ACL) Option {
	return func(c *config) {
		if len(acl) == 0 {
			c.errs = append(c.errs, errs.Invalid("empty ACL"))
			return
		}
		c.acl = append([]zk.ACL(nil), acl...)
	}
}

// WithDialer sets how connections to servers are opened (TLS, a proxy, a test link).
func WithDialer(d Dialer) Option {
	return func(c *config) {
		if d == nil {
			c.errs = append(c.errs, errs.Invalid("nil dialer"))
			return
		}
		c.dialer = d
	}
}

// WithTLS makes every connection a TLS one with cfg (cloned; a nil cfg is
// an error): the client dials with WithDialer's dialer (or TCP), then
// completes a handshake before any ZooKeeper traffic, so TLS composes with
// a proxy or a test link given to WithDialer, in either order. An empty
// cfg.ServerName is taken from each address dialled ("host" of
// "host:port"): the server's certificate must name it, an IP address as
// an IP SAN. ZooKeeper serves TLS on its secureClientPort with the Netty
// connection factory, and by default asks for a client certificate
// (cfg.Certificates) signed by an authority in its truststore.
//
// A handshake that fails is a *TLSError (errors.Is(err, ErrTLS)). Start
// returns one at once when every server fails so for a reason that will
// not pass by itself: the server's certificate does not verify or does
// not name the address, the server refused the client's certificate, or
// the port is a plain ZooKeeper one. A client without WithTLS that
// reaches a TLS port gets one too. Other handshake failures (a timeout, a
// connection reset) are retried like any failed dial; Start's error when
// its ctx ends wraps the last one. After the first session, every failed
// handshake is retried: the client keeps trying, as it does for a server
// that is down.
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) {
		if cfg == nil {
			c.errs = append(c.errs, errs.Invalid("nil TLS config"))
			return
		}
		c.tls = cfg.Clone()
	}
}

// WithLogger sets the logger of the client and of every recipe built on it
// (default slog.Default()). Nothing is logged at Info: Suspended and Lost
// are logged at Warn, with what else an operator must see (a node left for
// its session to remove, a failure that will not pass); Connected,
// Reconnected, retries and the connection's own dial and handshake failures
// at Debug. A recipe's lines carry the attributes recipe and path.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.errs = append(c.errs, errs.Invalid("nil logger"))
			return
		}
		c.logger = l
	}
}

func (c *config) createACL() []zk.ACL {
	switch {
	case len(c.acl) > 0:
		return c.acl
	case len(c.auth) > 0:
		return zk.AuthACL(zk.PermAll)
	default:
		return zk.WorldACL(zk.PermAll)
	}
}
