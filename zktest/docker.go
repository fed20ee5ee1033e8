package zktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
)

// LabelCluster is the docker label carried by every container and network a
// docker-backed Cluster creates; its value identifies the cluster.
const LabelCluster = "org.zkrecipes.zktest.cluster"

// dockerProbeTimeout bounds the check that a Docker engine answers.
const dockerProbeTimeout = 10 * time.Second

// dockerStopTimeout is the grace docker stop gives a server before SIGKILL.
const dockerStopTimeout = 10 * time.Second

var dockerEnvOnce sync.Once

// setDockerEnv makes testcontainers-go usable on machines without a registry
// and inside a container: it disables the Ryuk reaper (its image cannot be
// pulled; Close removes what the harness creates) and makes testcontainers
// dial 127.0.0.1 instead of guessing a gateway. Values already set in the
// environment are respected. testcontainers reads its configuration once, so
// this runs before any of its calls. It also quiets testcontainers'
// process-wide logger (see quietTestcontainers).
func setDockerEnv() {
	dockerEnvOnce.Do(func() {
		quietTestcontainers()
		for k, v := range map[string]string{
			"TESTCONTAINERS_RYUK_DISABLED": "true",
			"TESTCONTAINERS_HOST_OVERRIDE": "127.0.0.1",
		} {
			if _, ok := os.LookupEnv(k); !ok {
				_ = os.Setenv(k, v)
			}
		}
	})
}

// dockerAvailable checks that a Docker engine answers and that image exists
// locally (nothing is ever pulled). It returns a client for the caller to
// keep or close.
func dockerAvailable(ctx context.Context, image string) (*testcontainers.DockerClient, error) {
	setDockerEnv()
	pctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(pctx)
	if err != nil {
		return nil, fmt.Errorf("no Docker engine answers: %w", err)
	}
	if _, err := cli.Ping(pctx, client.PingOptions{}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("no Docker engine answers: %w", err)
	}
	if _, err := cli.ImageInspect(pctx, image); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("image %q is not available locally (build it with scripts/build-zk-image.sh and set %s): %w",
			image, EnvImage, err)
	}
	return cli, nil
}

// Java caches failed name lookups for 10s and successful ones for 30s by
// default. Ensemble members find each other by docker DNS names that exist
// only while the named container runs and may point elsewhere after a restart,
// so caching delays elections by many seconds; this file (passed with
// -Djava.security.properties) turns the cache down.
const (
	dnsSecurityFile       = "/tmp/zktest-dns.security"
	dnsSecurityProperties = "networkaddress.cache.ttl=1\nnetworkaddress.cache.negative.ttl=0\n"
)

// dockerDriver runs one container per server. Each container's port 2181 is
// published on a fixed port of 127.0.0.1 chosen before it was created, so the
// address survives stop and start. Ensembles share a user-defined network in
// which server N is reachable as zkN.
type dockerDriver struct {
	cfg     config
	cli     *testcontainers.DockerClient
	id      string
	network *testcontainers.DockerNetwork
	ctrs    []*testcontainers.DockerContainer
}

// startDocker creates and starts the containers (and the network of an
// ensemble) without waiting for ZooKeeper. On failure it removes what it made.
func startDocker(ctx context.Context, cfg config, cli *testcontainers.DockerClient) (driver, endpoints, error) {
	d := &dockerDriver{cfg: cfg, cli: cli, id: randomID()}
	eps, err := d.launch(ctx)
	if err != nil {
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		_ = d.close(cctx)
		return nil, endpoints{}, err
	}
	return d, eps, nil
}

func (d *dockerDriver) launch(ctx context.Context) (endpoints, error) {
	n := d.cfg.servers
	secure := 0
	if d.cfg.tlsFiles != nil {
		secure = n
	}
	ports, err := freePorts(n + secure)
	if err != nil {
		return endpoints{}, err
	}
	labels := map[string]string{LabelCluster: d.id}
	if n > 1 {
		nw, err := tcnetwork.New(ctx, tcnetwork.WithLabels(labels))
		if err != nil {
			return endpoints{}, fmt.Errorf("zktest: create docker network: %w", err)
		}
		d.network = nw
	}
	clientPort, err := network.ParsePort("2181/tcp")
	if err != nil {
		return endpoints{}, fmt.Errorf("zktest: %w", err)
	}
	securePort, err := network.ParsePort(fmt.Sprintf("%d/tcp", containerSecurePort))
	if err != nil {
		return endpoints{}, fmt.Errorf("zktest: %w", err)
	}
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	var eps endpoints
	for i := range n {
		eps.plain = append(eps.plain, loopbackAddr(ports[i]))
		bindings := network.PortMap{clientPort: {{HostIP: loopback, HostPort: strconv.Itoa(ports[i])}}}
		exposed := []string{"2181/tcp"}
		if secure > 0 {
			eps.secure = append(eps.secure, loopbackAddr(ports[n+i]))
			bindings[securePort] = []network.PortBinding{{HostIP: loopback, HostPort: strconv.Itoa(ports[n+i])}}
			exposed = append(exposed, securePort.String())
		}
		opts := []testcontainers.ContainerCustomizer{
			testcontainers.WithLogger(containerLogger(d.cfg.logger)),
			testcontainers.WithName(fmt.Sprintf("zktest-%s-zk%d", d.id, i+1)),
			testcontainers.WithLabels(labels),
			testcontainers.WithExposedPorts(exposed...),
			testcontainers.WithEnv(d.env(i)),
			testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) { hc.PortBindings = bindings }),
		}
		if f := d.cfg.tlsFiles; f != nil {
			opts = append(opts, testcontainers.WithFiles(
				testcontainers.ContainerFile{HostFilePath: f.KeyStore, ContainerFilePath: containerKeyStore, FileMode: 0o644},
				testcontainers.ContainerFile{HostFilePath: f.TrustStore, ContainerFilePath: containerTrustStore, FileMode: 0o644},
			))
		}
		if d.network != nil {
			opts = append(opts, testcontainers.WithFiles(testcontainers.ContainerFile{
				Reader:            strings.NewReader(dnsSecurityProperties),
				ContainerFilePath: dnsSecurityFile,
				FileMode:          0o644,
			}))
			opts = append(opts, tcnetwork.WithNetwork([]string{fmt.Sprintf("zk%d", i+1)}, d.network))
		}
		ctr, err := testcontainers.Run(ctx, d.cfg.image, opts...)
		if ctr != nil {
			d.ctrs = append(d.ctrs, ctr)
		}
		if err != nil {
			return endpoints{}, fmt.Errorf("zktest: run container for server %d: %w", i, err)
		}
	}
	return eps, nil
}

// env configures server i through the official image's variables (the image
// built by scripts/build-zk-image.sh honours the same ones).
func (d *dockerDriver) env(i int) map[string]string {
	c := d.cfg
	extra := []string{
		fmt.Sprintf("minSessionTimeout=%d", 2*ms(c.tickTime)),
		fmt.Sprintf("maxSessionTimeout=%d", ms(c.maxSessionTimeout)),
	}
	jvm := []string{
		"-Xmx256m",
		fmt.Sprintf("-Dznode.container.checkIntervalMs=%d", ms(c.containerCheck)),
		"-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.snapshot.trust.empty=true",
		"-Dzookeeper.extendedTypesEnabled=true", // TTL nodes (recipes/node)
	}
	if c.hooks != nil {
		jvm = append(jvm, c.hooks.jvmFlags...)
	}
	env := map[string]string{
		"ZOO_MY_ID":                  strconv.Itoa(i + 1),
		"ZOO_TICK_TIME":              strconv.FormatInt(ms(c.tickTime), 10),
		"ZOO_INIT_LIMIT":             strconv.FormatInt(c.initLimit(), 10),
		"ZOO_SYNC_LIMIT":             strconv.FormatInt(c.syncLimit(), 10),
		"ZOO_4LW_COMMANDS_WHITELIST": "*",
		"ZOO_MAX_CLIENT_CNXNS":       "0", // every client arrives from the docker gateway's address
		"ZOO_ADMINSERVER_ENABLED":    "false",
	}
	if c.servers > 1 {
		jvm = append(jvm, "-Djava.security.properties="+dnsSecurityFile)
		servers := make([]string, c.servers)
		for j := range servers {
			servers[j] = fmt.Sprintf("server.%d=zk%d:2888:3888;2181", j+1, j+1)
		}
		env["ZOO_SERVERS"] = strings.Join(servers, " ")
		// A restarted member may come back with another address; listening on
		// all addresses avoids binding to a stale one.
		extra = append(extra, "quorumListenOnAllIPs=true")
	}
	if f := c.tlsFiles; f != nil {
		extra = append(extra, f.secureCfg(containerSecurePort, "", containerKeyStore, containerTrustStore)...)
	}
	env["ZOO_CFG_EXTRA"] = strings.Join(extra, " ")
	env["JVMFLAGS"] = strings.Join(jvm, " ")
	return env
}

func (d *dockerDriver) ctr(i int) (*testcontainers.DockerContainer, error) {
	if i < 0 || i >= len(d.ctrs) {
		return nil, ErrBadIndex
	}
	return d.ctrs[i], nil
}

func (d *dockerDriver) startServer(ctx context.Context, i int) error {
	c, err := d.ctr(i)
	if err != nil {
		return err
	}
	return c.Start(ctx)
}

func (d *dockerDriver) stopServer(ctx context.Context, i int) error {
	c, err := d.ctr(i)
	if err != nil {
		return err
	}
	timeout := dockerStopTimeout
	return c.Stop(ctx, &timeout)
}

func (d *dockerDriver) killServer(ctx context.Context, i int, paused bool) error {
	c, err := d.ctr(i)
	if err != nil {
		return err
	}
	if paused {
		// The engine refuses to signal a paused container.
		if _, err := d.cli.ContainerUnpause(ctx, c.GetContainerID(), client.ContainerUnpauseOptions{}); err != nil {
			return fmt.Errorf("docker unpause: %w", err)
		}
	}
	if _, err := d.cli.ContainerKill(ctx, c.GetContainerID(), client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return fmt.Errorf("docker kill: %w", err)
	}
	// The kill is asynchronous: wait until the engine reports the container
	// stopped, so StartServer can follow at once.
	for {
		st, err := d.state(ctx, c)
		if err != nil {
			return err
		}
		if !st.Running {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (d *dockerDriver) state(ctx context.Context, c *testcontainers.DockerContainer) (*container.State, error) {
	res, err := d.cli.ContainerInspect(ctx, c.GetContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		return nil, fmt.Errorf("docker inspect: %w", err)
	}
	if res.Container.State == nil {
		return nil, errors.New("docker inspect: no state")
	}
	return res.Container.State, nil
}

func (d *dockerDriver) pauseServer(ctx context.Context, i int) error {
	c, err := d.ctr(i)
	if err != nil {
		return err
	}
	if _, err := d.cli.ContainerPause(ctx, c.GetContainerID(), client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("docker pause: %w", err)
	}
	return nil
}

func (d *dockerDriver) resumeServer(ctx context.Context, i int) error {
	c, err := d.ctr(i)
	if err != nil {
		return err
	}
	if _, err := d.cli.ContainerUnpause(ctx, c.GetContainerID(), client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("docker unpause: %w", err)
	}
	return nil
}

func (d *dockerDriver) exited(ctx context.Context, i int) error {
	c, err := d.ctr(i)
	if err != nil {
		return err
	}
	st, err := d.state(ctx, c)
	if err != nil {
		// Cannot tell; let the caller keep polling.
		return nil
	}
	if st.Running || st.Restarting {
		return nil
	}
	return fmt.Errorf("container %s, exit code %d", st.Status, st.ExitCode)
}

func (d *dockerDriver) logTail(ctx context.Context, i int) string {
	c, err := d.ctr(i)
	if err != nil {
		return ""
	}
	rc, err := c.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 8<<20))
	return lastLines(string(b), 30)
}

func (d *dockerDriver) close(ctx context.Context) error {
	var errs []error
	for i, c := range d.ctrs {
		if st, err := d.state(ctx, c); err == nil && st.Paused {
			_, _ = d.cli.ContainerUnpause(ctx, c.GetContainerID(), client.ContainerUnpauseOptions{})
		}
		// Data is discarded, so no grace period.
		if err := c.Terminate(ctx, testcontainers.StopTimeout(0)); err != nil {
			errs = append(errs, fmt.Errorf("remove container of server %d: %w", i, err))
		}
	}
	if d.network != nil {
		if err := d.network.Remove(ctx); err != nil {
			errs = append(errs, fmt.Errorf("remove network: %w", err))
		}
	}
	if err := d.cli.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (d *dockerDriver) describe() string { return "image=" + d.cfg.image }

// verbose reports whether EnvVerbose asks for testcontainers' own output.
func verbose() bool {
	v, _ := strconv.ParseBool(os.Getenv(EnvVerbose))
	return v
}

// quietTestcontainers sends the messages testcontainers-go prints through its
// process-wide logger (the banner naming the Docker host, API version and
// session at the first Docker call, the reaper's and the wait strategies'
// messages) to slog.Default() at debug level instead of stderr, unless
// EnvVerbose is set. It replaces only testcontainers' own default logger: one
// a program installed with its log.SetDefault, or the no-op one it uses under
// -test.v=false, is kept.
func quietTestcontainers() {
	if verbose() {
		return
	}
	if l, ok := tclog.Default().(*stdlog.Logger); ok && l.Writer() == os.Stderr {
		tclog.SetDefault(slogPrintf{defaultSlog{}})
	}
}

// containerLogger is the logger each container's messages go to: the harness
// logger at debug level, or testcontainers' default when EnvVerbose is set.
func containerLogger(l *slog.Logger) tclog.Logger {
	if verbose() {
		return tclog.Default()
	}
	return slogPrintf{l}
}

// defaultSlog logs to whatever slog.Default() is at the time of each call.
type defaultSlog struct{}

// Debug logs msg at debug level to slog.Default().
func (defaultSlog) Debug(msg string, args ...any) { slog.Default().Debug(msg, args...) }

// slogPrintf forwards testcontainers' messages to a logger at debug level,
// keeping test output quiet.
type slogPrintf struct {
	l interface{ Debug(string, ...any) }
}

// Printf logs one testcontainers message at debug level.
func (s slogPrintf) Printf(format string, v ...any) {
	s.l.Debug("zktest: testcontainers: " + strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// randomID returns a short random hex string naming one cluster's resources.
func randomID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return hex.EncodeToString(b[:])
}
