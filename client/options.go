package client

import (
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/go-zookeeper/zk"

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
	dialer         Dialer
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
			c.errs = append(c.errs, invalidArg("session timeout must be positive, got %v", d))
			return
		}
		c.sessionTimeout = d
	}
}

// WithRetryPolicy sets the policy of every retried operation (default retry.Default()).
func WithRetryPolicy(p retry.Policy) Option {
	return func(c *config) {
		if p == nil {
			c.errs = append(c.errs, invalidArg("nil retry policy"))
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
			c.errs = append(c.errs, invalidArg("digest auth needs a user name"))
			return
		}
		c.auth = append(c.auth, authEntry{scheme: "digest", auth: []byte(user + ":" + password)})
	}
}

// WithACL sets the ACL of every node the client creates (default: world
// all, or "creator all" when digest auth is configured).
func WithACL(acl ...zk.ACL) Option {
	return func(c *config) {
		if len(acl) == 0 {
			c.errs = append(c.errs, invalidArg("empty ACL"))
			return
		}
		c.acl = append([]zk.ACL(nil), acl...)
	}
}

// WithDialer sets how connections to servers are opened (TLS, a proxy, a test link).
func WithDialer(d Dialer) Option {
	return func(c *config) {
		if d == nil {
			c.errs = append(c.errs, invalidArg("nil dialer"))
			return
		}
		c.dialer = d
	}
}

// WithLogger sets the logger (default slog.Default()). State transitions are
// logged at Info, go-zookeeper's own messages at Debug.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.errs = append(c.errs, invalidArg("nil logger"))
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

// zkLogger routes go-zookeeper's Printf logging to slog at Debug.
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug("go-zookeeper", "msg", fmt.Sprintf(format, args...))
}
