package zktest

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Backend names the way a Cluster runs its ZooKeeper servers.
type Backend string

const (
	// BackendDocker runs one container per server through testcontainers-go.
	BackendDocker Backend = "docker"
	// BackendLocal runs one java process per server from Debian's zookeeper
	// package (or the jars named by ZK_CLASSPATH), or from the jars of
	// another version (WithVersion).
	BackendLocal Backend = "local"
	// backendAuto picks docker when it can serve, local otherwise.
	backendAuto Backend = ""
)

// Environment variables read by Start when the matching option is not given.
const (
	// EnvBackend selects the backend: "docker", "local", or ""/"auto".
	EnvBackend = "ZK_BACKEND"
	// EnvImage names the docker image.
	EnvImage = "ZK_IMAGE"
	// EnvClasspath overrides the java class path of the local backend for
	// DefaultVersion (not for another version: WithVersion).
	EnvClasspath = "ZK_CLASSPATH"
	// EnvVersion selects the ZooKeeper version, as WithVersion does, so that
	// a whole test package runs on another one:
	//	ZK_BACKEND=local ZK_VERSION=3.9.3 go test ./client/internal/wire/
	EnvVersion = "ZK_VERSION"
	// EnvVersionsDir replaces VersionsDir, where the jars of the versions
	// other than DefaultVersion are.
	EnvVersionsDir = "ZK_VERSIONS_DIR"
	// EnvVerbose, when true ("1", "true"...), lets testcontainers-go print
	// its own messages (its banner naming the Docker host, API version and
	// session, container events) to stderr as it does by default. Otherwise
	// the docker backend sends them to zktest's logger (WithLogger; the
	// process-wide ones to slog.Default()) at debug level.
	EnvVerbose = "ZKTEST_VERBOSE"
)

// DefaultImage is the image used when neither WithImage nor ZK_IMAGE names one:
// the official ZooKeeper image.
const DefaultImage = "zookeeper:3.9"

// Defaults of the tunable server settings.
const (
	DefaultTickTime               = 200 * time.Millisecond
	DefaultMaxSessionTimeout      = 60 * time.Second
	DefaultContainerCheckInterval = 500 * time.Millisecond
)

// Option configures Start (and ForTest, RunMain, ServersOrThrowaway). A bad
// value makes Start fail with an error wrapping ErrInvalidOption.
type Option func(*config) error

type config struct {
	servers           int
	backend           Backend
	backendSet        bool
	image             string
	version           string // DefaultVersion unless WithVersion or ZK_VERSION
	versionSet        bool
	tickTime          time.Duration
	maxSessionTimeout time.Duration
	containerCheck    time.Duration
	logger            *slog.Logger
	tls               bool
	tlsFiles          *TLSFiles // made by Start when tls
	hooks             *testHooks
}

// testHooks lets this package's tests inject faults and observe internals;
// nil outside tests.
type testHooks struct {
	jvmFlags []string     // appended to every server's JVM flags
	launched func(driver) // called once the servers were launched
}

// WithServers sets the number of servers; 1 (the default) runs a standalone
// server, more run an ensemble. Start rejects n < 1. (It takes a count, where
// client.WithServers takes the addresses: Cluster.Addrs.)
func WithServers(n int) Option {
	return func(c *config) error {
		c.servers = n
		return nil
	}
}

// WithBackend forces a backend. Without it the ZK_BACKEND environment variable
// decides ("docker", "local", or empty/"auto" for automatic choice). An explicit
// backend never falls back to the other one.
func WithBackend(b Backend) Option {
	return func(c *config) error {
		c.backend = b
		c.backendSet = true
		return nil
	}
}

// WithImage sets the docker image (default: ZK_IMAGE, else DefaultImage). The
// image must exist locally; Start never pulls.
func WithImage(ref string) Option {
	return func(c *config) error {
		c.image = ref
		return nil
	}
}

// WithVersion sets the ZooKeeper version the servers run (default:
// ZK_VERSION, else DefaultVersion; "" means DefaultVersion). A version other
// than DefaultVersion runs on the local backend only, from the jars in
// VersionsDir/zookeeper-VERSION/lib that scripts/fetch-zk-jars.sh fetched
// (Version39 and Version34; Start fails with ErrNoBackend, naming the fetch
// to run, when they are missing): without a backend chosen, Start takes the
// local one, and the docker backend (WithBackend or ZK_BACKEND) is an error
// wrapping ErrInvalidOption, since the image decides the version there.
// WithTLS needs 3.5 or later.
func WithVersion(v string) Option {
	return func(c *config) error {
		c.version = v
		c.versionSet = true
		return nil
	}
}

// WithTickTime sets ZooKeeper's tickTime (default 200ms). The server accepts
// session timeouts from 2 to the configured maximum.
func WithTickTime(d time.Duration) Option {
	return func(c *config) error {
		c.tickTime = d
		return nil
	}
}

// WithMaxSessionTimeout sets maxSessionTimeout (default 60s).
func WithMaxSessionTimeout(d time.Duration) Option {
	return func(c *config) error {
		c.maxSessionTimeout = d
		return nil
	}
}

// WithContainerCheckInterval sets how often the servers reap empty container
// znodes (the znode.container.checkIntervalMs system property; default 500ms).
func WithContainerCheckInterval(d time.Duration) Option {
	return func(c *config) error {
		c.containerCheck = d
		return nil
	}
}

// WithTLS gives every server a secure client port besides its plain one:
// ZooKeeper's Netty connection factory serves TLS there with a keystore
// and truststore that Start makes (see TLSFiles: keytool from the JDK must
// be in PATH on either backend) and that Close removes. SecureAddr and
// SecureAddrs are its addresses (stable across restarts, as Addr's), and
// TLS the files a client needs (Cluster.TLS().ClientConfig()). The server
// requires a client certificate signed by the cluster's authority.
func WithTLS() Option {
	return func(c *config) error {
		c.tls = true
		return nil
	}
}

// WithLogger sets the logger for zktest's own messages (default
// slog.Default()). Server logs never go to it.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// newConfig applies opts over the defaults and the environment and validates
// the result.
func newConfig(opts []Option) (config, error) {
	c := config{
		servers:           1,
		tickTime:          DefaultTickTime,
		maxSessionTimeout: DefaultMaxSessionTimeout,
		containerCheck:    DefaultContainerCheckInterval,
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c); err != nil {
			return c, err
		}
	}
	if !c.backendSet {
		c.backend = Backend(os.Getenv(EnvBackend))
	}
	b, err := parseBackend(string(c.backend))
	if err != nil {
		return c, err
	}
	c.backend = b
	if c.image == "" {
		c.image = ImageFromEnv()
	}
	if !c.versionSet {
		c.version = VersionFromEnv()
	}
	if c.version, err = checkVersion(c.version); err != nil {
		return c, err
	}
	if c.version != DefaultVersion {
		switch c.backend {
		case BackendDocker:
			return c, fmt.Errorf("%w: ZooKeeper %s runs on the %s backend only, not %s (the image decides the version there)",
				ErrInvalidOption, c.version, BackendLocal, BackendDocker)
		case backendAuto:
			c.backend = BackendLocal
		}
		if c.tls && versionBelow(c.version, 3, 5) {
			return c, fmt.Errorf("%w: WithTLS: ZooKeeper %s has no secure client port (3.5 and later)", ErrInvalidOption, c.version)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	switch {
	case c.servers < 1:
		return c, fmt.Errorf("%w: WithServers(%d): need at least 1 server", ErrInvalidOption, c.servers)
	case c.tickTime < time.Millisecond:
		return c, fmt.Errorf("%w: WithTickTime(%v): need at least 1ms", ErrInvalidOption, c.tickTime)
	case c.maxSessionTimeout < 2*c.tickTime:
		return c, fmt.Errorf("%w: WithMaxSessionTimeout(%v): below the minimum session timeout 2*tickTime=%v",
			ErrInvalidOption, c.maxSessionTimeout, 2*c.tickTime)
	case c.containerCheck < time.Millisecond:
		return c, fmt.Errorf("%w: WithContainerCheckInterval(%v): need at least 1ms", ErrInvalidOption, c.containerCheck)
	}
	return c, nil
}

// parseBackend accepts the spellings of ZK_BACKEND.
func parseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return backendAuto, nil
	case string(BackendDocker):
		return BackendDocker, nil
	case string(BackendLocal):
		return BackendLocal, nil
	}
	return "", fmt.Errorf("%w: backend %q (want %q, %q or %q)", ErrInvalidOption, s, BackendDocker, BackendLocal, "auto")
}

// ImageFromEnv returns the image Start uses without WithImage: ZK_IMAGE when
// set, else DefaultImage.
func ImageFromEnv() string {
	if v := strings.TrimSpace(os.Getenv(EnvImage)); v != "" {
		return v
	}
	return DefaultImage
}

// ms renders d as whole milliseconds (at least 1) for zoo.cfg and -D flags.
func ms(d time.Duration) int64 {
	if v := d.Milliseconds(); v > 0 {
		return v
	}
	return 1
}

// initLimit and syncLimit give followers at least ~4s to sync and ~2s to ack,
// whatever the tick, so a busy machine does not break the quorum.
func (c config) initLimit() int64 { return max(10, ceilDiv(4*time.Second, c.tickTime)) }
func (c config) syncLimit() int64 { return max(5, ceilDiv(2*time.Second, c.tickTime)) }

func ceilDiv(a, b time.Duration) int64 { return int64((a + b - 1) / b) }
