package zktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// closeTimeout bounds the teardown in Close.
const closeTimeout = 2 * time.Minute

// driver is what a backend implements. The Cluster serialises calls per server
// and tracks whether each server runs, is paused or is stopped; a driver only
// performs the action.
type driver interface {
	// startServer starts stopped server i again, keeping its data and port. It
	// does not wait for the server to serve.
	startServer(ctx context.Context, i int) error
	// stopServer stops running server i gracefully, keeping its data.
	stopServer(ctx context.Context, i int) error
	// killServer kills server i abruptly, keeping its data; paused tells that
	// the server is currently paused.
	killServer(ctx context.Context, i int, paused bool) error
	pauseServer(ctx context.Context, i int) error
	resumeServer(ctx context.Context, i int) error
	// exited returns a non-nil error when server i, believed to run, has
	// terminated on its own.
	exited(ctx context.Context, i int) error
	// logTail returns the end of server i's log, for error messages.
	logTail(ctx context.Context, i int) string
	// close tears everything down; it is called once.
	close(ctx context.Context) error
	// describe returns backend details for String, such as "image=...".
	describe() string
}

type serverState int

const (
	stateRunning serverState = iota
	statePaused
	stateStopped
)

// Cluster is a running ZooKeeper standalone server or ensemble on loopback. Its
// methods are safe for concurrent use. Close it when done.
type Cluster struct {
	kind     Backend
	cfg      config
	addrs    []string
	secure   []string // secure client addresses (WithTLS), else nil
	drv      driver
	serverMu []sync.Mutex   // serialises lifecycle actions on one server
	state    []atomic.Int32 // a serverState; written under serverMu[i]

	mu        sync.RWMutex // guards closed; held for reading around driver calls made without a server lock
	closed    bool
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	closeErr  error
}

// Start launches the servers on the chosen backend and returns once every one
// of them serves requests (for an ensemble: a quorum formed and every member
// answers as leader or follower). On failure nothing is left running.
func Start(ctx context.Context, opts ...Option) (*Cluster, error) {
	ctx = orBackground(ctx)
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if cfg.tls {
		if cfg.tlsFiles, err = makeTLSFiles(ctx); err != nil {
			return nil, err
		}
	}
	kind, drv, eps, err := launch(ctx, cfg)
	if err != nil {
		cfg.removeTLSFiles()
		return nil, err
	}
	if cfg.hooks != nil && cfg.hooks.launched != nil {
		cfg.hooks.launched(drv)
	}
	c := &Cluster{
		kind:     kind,
		cfg:      cfg,
		addrs:    eps.plain,
		secure:   eps.secure,
		drv:      drv,
		serverMu: make([]sync.Mutex, len(eps.plain)),
		state:    make([]atomic.Int32, len(eps.plain)),
		done:     make(chan struct{}),
	}
	if err := c.waitAll(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	cfg.logger.Info("zktest: "+c.String(), "addrs", c.ConnectString())
	return c, nil
}

// endpoints are the client addresses of a driver's servers, in index
// order: the plain ones, and the secure ones (WithTLS; else nil).
type endpoints struct{ plain, secure []string }

// dockerUnavailableOnce makes the automatic choice's notice that it falls
// back to the local backend come once per process, however many clusters
// the process starts: what started is logged by each Start anyway.
var dockerUnavailableOnce sync.Once

// launch picks the backend and starts the servers without waiting for them.
func launch(ctx context.Context, cfg config) (Backend, driver, endpoints, error) {
	switch cfg.backend {
	case BackendDocker:
		cli, err := dockerAvailable(ctx, cfg.image)
		if err != nil {
			return "", nil, endpoints{}, fmt.Errorf("%w: docker backend requested (image %s): %w", ErrNoBackend, cfg.image, err)
		}
		d, eps, err := startDocker(ctx, cfg, cli)
		return BackendDocker, d, eps, err
	case BackendLocal:
		lc, err := localAvailable(cfg.version)
		if err != nil {
			return "", nil, endpoints{}, fmt.Errorf("%w: local backend requested: %w", ErrNoBackend, err)
		}
		d, eps, err := startLocal(ctx, cfg, lc)
		return BackendLocal, d, eps, err
	}
	cli, dockerErr := dockerAvailable(ctx, cfg.image)
	if dockerErr == nil {
		d, eps, err := startDocker(ctx, cfg, cli)
		return BackendDocker, d, eps, err
	}
	dockerUnavailableOnce.Do(func() {
		cfg.logger.Info("zktest: docker backend unavailable, trying local", "reason", dockerErr.Error())
	})
	lc, localErr := localAvailable(cfg.version)
	if localErr != nil {
		return "", nil, endpoints{}, fmt.Errorf("%w: docker: %w; local: %w", ErrNoBackend, dockerErr, localErr)
	}
	d, eps, err := startLocal(ctx, cfg, lc)
	return BackendLocal, d, eps, err
}

// waitAll waits until every server serves, concurrently. The first failure
// (a server that died, or ctx ending) stops the other waits.
func (c *Cluster) waitAll(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	errs := make([]error, len(c.addrs))
	var wg sync.WaitGroup
	for i := range c.addrs {
		wg.Go(func() {
			if err := c.WaitServing(ctx, i); err != nil {
				errs[i] = err
				cancel()
			}
		})
	}
	wg.Wait()
	if parent.Err() == nil {
		// Leave out the waits this function cancelled itself.
		for i, err := range errs {
			if errors.Is(err, context.Canceled) {
				errs[i] = nil
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("zktest: %s did not start: %w", c.String(), err)
	}
	return nil
}

// Backend reports which backend runs the servers.
func (c *Cluster) Backend() Backend { return c.kind }

// Size returns the number of servers.
func (c *Cluster) Size() int { return len(c.addrs) }

// Addr returns "127.0.0.1:PORT", the client address of server i (0-based), or
// "" when i is out of range. The address stays the same across StopServer,
// KillServer and StartServer.
func (c *Cluster) Addr(i int) string {
	if c.checkIndex(i) != nil {
		return ""
	}
	return c.addrs[i]
}

// Addrs returns the client addresses of all servers, in index order.
func (c *Cluster) Addrs() []string { return append([]string(nil), c.addrs...) }

// ConnectString returns the comma-separated client addresses, as ZooKeeper
// clients expect them.
func (c *Cluster) ConnectString() string { return strings.Join(c.addrs, ",") }

// TickTime returns the servers' tickTime.
func (c *Cluster) TickTime() time.Duration { return c.cfg.tickTime }

// String describes the cluster, e.g. "backend=docker image=zookeeper:3.9 servers=3".
func (c *Cluster) String() string {
	if c == nil || c.drv == nil {
		return "zktest.Cluster(not started)"
	}
	s := "backend=" + string(c.kind)
	if d := c.drv.describe(); d != "" {
		s += " " + d
	}
	return fmt.Sprintf("%s servers=%d", s, len(c.addrs))
}

// checkIndex returns an error wrapping ErrBadIndex unless server i exists.
func (c *Cluster) checkIndex(i int) error {
	if i < 0 || i >= len(c.addrs) {
		return fmt.Errorf("%w: %d (cluster has %d servers)", ErrBadIndex, i, len(c.addrs))
	}
	return nil
}

// lock takes server i's lock after checking i and that the cluster is open.
// The caller must call the returned unlock.
func (c *Cluster) lock(i int) (unlock func(), err error) {
	if err := c.checkIndex(i); err != nil {
		return nil, err
	}
	c.serverMu[i].Lock()
	if c.isClosed() {
		c.serverMu[i].Unlock()
		return nil, ErrClosed
	}
	return c.serverMu[i].Unlock, nil
}

func (c *Cluster) isClosed() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.closed
}

// whileOpen runs f unless the cluster is closed, keeping Close from tearing
// the driver down meanwhile. It reports whether f ran.
func (c *Cluster) whileOpen(f func()) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return false
	}
	f()
	return true
}

// StopServer stops server i gracefully (SIGTERM, docker stop), keeping its data.
// Its port then refuses connections until StartServer. Stopping a stopped
// server does nothing.
func (c *Cluster) StopServer(ctx context.Context, i int) error {
	ctx = orBackground(ctx)
	unlock, err := c.lock(i)
	if err != nil {
		return err
	}
	defer unlock()
	switch c.getState(i) {
	case stateStopped:
		return nil
	case statePaused:
		if err := c.drv.resumeServer(ctx, i); err != nil {
			return c.wrap("stop", i, err)
		}
		c.setState(i, stateRunning)
	}
	if err := c.drv.stopServer(ctx, i); err != nil {
		return c.wrap("stop", i, err)
	}
	c.setState(i, stateStopped)
	return nil
}

// KillServer kills server i without warning (SIGKILL, docker kill), keeping
// its data; StartServer brings it back. Killing a stopped server does nothing.
func (c *Cluster) KillServer(ctx context.Context, i int) error {
	ctx = orBackground(ctx)
	unlock, err := c.lock(i)
	if err != nil {
		return err
	}
	defer unlock()
	if c.getState(i) == stateStopped {
		return nil
	}
	if err := c.drv.killServer(ctx, i, c.getState(i) == statePaused); err != nil {
		return c.wrap("kill", i, err)
	}
	c.setState(i, stateStopped)
	return nil
}

// StartServer starts server i again with the same data and port and waits
// until it serves (in an ensemble: until it rejoined the quorum). On a running
// server it only waits; on a paused one it resumes it first.
func (c *Cluster) StartServer(ctx context.Context, i int) error {
	ctx = orBackground(ctx)
	if err := c.startLocked(ctx, i); err != nil {
		return err
	}
	return c.WaitServing(ctx, i)
}

func (c *Cluster) startLocked(ctx context.Context, i int) error {
	unlock, err := c.lock(i)
	if err != nil {
		return err
	}
	defer unlock()
	switch c.getState(i) {
	case statePaused:
		if err := c.drv.resumeServer(ctx, i); err != nil {
			return c.wrap("start", i, err)
		}
		c.setState(i, stateRunning)
		return nil
	case stateRunning:
		if c.drv.exited(ctx, i) == nil {
			return nil
		}
		// It died on its own: start it again below.
	}
	if err := c.drv.startServer(ctx, i); err != nil {
		return c.wrap("start", i, err)
	}
	c.setState(i, stateRunning)
	return nil
}

// PauseServer freezes server i (SIGSTOP, docker pause): its TCP connections
// stay open but it answers nothing until ResumeServer, so clients see request
// timeouts rather than disconnects. Pausing a paused server does nothing; a
// stopped server gives ErrNotRunning.
func (c *Cluster) PauseServer(ctx context.Context, i int) error {
	return c.freeze(ctx, i, "pause", statePaused, c.drv.pauseServer)
}

// ResumeServer thaws a server frozen by PauseServer (SIGCONT, docker unpause).
// It does not wait for the server to serve again; use WaitServing for that.
// Resuming a running server does nothing; a stopped server gives ErrNotRunning.
func (c *Cluster) ResumeServer(ctx context.Context, i int) error {
	return c.freeze(ctx, i, "resume", stateRunning, c.drv.resumeServer)
}

// freeze moves server i between running and paused: to is the state wanted,
// act the driver's way of getting there.
func (c *Cluster) freeze(ctx context.Context, i int, op string, to serverState, act func(context.Context, int) error) error {
	ctx = orBackground(ctx)
	unlock, err := c.lock(i)
	if err != nil {
		return err
	}
	defer unlock()
	switch c.getState(i) {
	case to:
		return nil
	case stateStopped:
		return c.wrap(op, i, ErrNotRunning)
	}
	if err := act(ctx, i); err != nil {
		return c.wrap(op, i, err)
	}
	c.setState(i, to)
	return nil
}

// Close terminates every server and removes everything the cluster created
// (processes, temporary directories, containers, networks). It is idempotent:
// later calls wait for the first one and return its result.
func (c *Cluster) Close() error {
	if c == nil || c.drv == nil {
		return nil // not made by Start: nothing to release
	}
	c.closeOnce.Do(c.doClose)
	return c.closeErr
}

func (c *Cluster) doClose() {
	c.mu.Lock()
	c.closed = true
	close(c.done)
	c.mu.Unlock()

	// Wait for lifecycle actions in flight; new ones see closed and return.
	for i := range c.serverMu {
		c.serverMu[i].Lock()
	}
	ctx, cancel := cleanupContext(context.Background())
	err := c.drv.close(ctx)
	cancel()
	c.cfg.removeTLSFiles()
	for i := range c.serverMu {
		c.serverMu[i].Unlock()
	}
	if err != nil {
		c.closeErr = fmt.Errorf("zktest: close %s: %w", c.String(), err)
	}
}

func (c *Cluster) getState(i int) serverState { return serverState(c.state[i].Load()) }

func (c *Cluster) setState(i int, s serverState) { c.state[i].Store(int32(s)) }

func (c *Cluster) wrap(op string, i int, err error) error {
	return fmt.Errorf("zktest: %s server %d (%s): %w", op, i, c.addrs[i], err)
}

// tail formats the end of server i's log for an error message.
func (c *Cluster) tail(i int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var t string
	c.whileOpen(func() { t = strings.TrimSpace(c.drv.logTail(ctx, i)) })
	if t == "" {
		return ""
	}
	return "\n--- last lines of server " + fmt.Sprint(i) + " log ---\n" + t
}

// cleanupContext returns a context for tearing down after a failure: it keeps
// ctx's values but not its cancellation, and allows closeTimeout.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
}

// orBackground tolerates a nil context.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
