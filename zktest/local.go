package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// debianJavaDir is where Debian's packages put their jars.
const debianJavaDir = "/usr/share/java"

// Jars of Debian's zookeeper package: the first ones are required, the rest
// (the log4j binding and netty) are added when present. zookeeper.jar's
// manifest names its other dependencies itself, but not netty-codec, which
// the Netty connection factory of a secure port (WithTLS) needs; Debian's
// netty-all.jar is an empty aggregate.
var (
	requiredJars = []string{"zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar"}
	optionalJars = []string{"slf4j-log4j12.jar", "log4j-1.2.jar", "netty-all.jar", "netty-codec.jar"}
)

// localStopGrace is how long a SIGTERMed server may take before SIGKILL.
const localStopGrace = 5 * time.Second

// localSetup is what localAvailable found: the java binary and class path.
type localSetup struct {
	java      string
	classpath string
}

// localAvailable checks that java and the jars of ZooKeeper version are
// installed: Debian's for DefaultVersion, else those in VersionsDir.
func localAvailable(version string) (localSetup, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return localSetup{}, fmt.Errorf("java not found in PATH (apt-get install -y zookeeper): %w", err)
	}
	if version != "" && version != DefaultVersion {
		cp, err := versionClasspath(version)
		if err != nil {
			return localSetup{}, err
		}
		return localSetup{java: java, classpath: cp}, nil
	}
	if cp := strings.TrimSpace(os.Getenv(EnvClasspath)); cp != "" {
		return localSetup{java: java, classpath: cp}, nil
	}
	var parts, missing []string
	for _, jar := range requiredJars {
		p := filepath.Join(debianJavaDir, jar)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
			continue
		}
		parts = append(parts, p)
	}
	if len(missing) > 0 {
		return localSetup{}, fmt.Errorf("ZooKeeper jars missing: %s (apt-get install -y zookeeper, or set %s)",
			strings.Join(missing, ", "), EnvClasspath)
	}
	for _, jar := range optionalJars {
		p := filepath.Join(debianJavaDir, jar)
		if _, err := os.Stat(p); err == nil {
			parts = append(parts, p)
		}
	}
	return localSetup{java: java, classpath: strings.Join(parts, string(os.PathListSeparator))}, nil
}

// localDriver runs each server as a java process in its own process group,
// with its configuration, data and logs in a private temporary directory.
type localDriver struct {
	cfg     config
	setup   localSetup
	root    string
	servers []*localServer
}

type localServer struct {
	id         int // ZooKeeper's server id, index+1
	dir        string
	clientPort int
	securePort int // WithTLS's secure client port, else 0

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has been reaped
	waitErr error         // the process's exit status; read after done
}

// startLocal writes every server's configuration and starts the processes.
func startLocal(ctx context.Context, cfg config, setup localSetup) (driver, endpoints, error) {
	n := cfg.servers
	perServer := 1
	if n > 1 {
		perServer = 3 // client, quorum and election ports
	}
	secure := 0
	if cfg.tlsFiles != nil {
		secure = n // and a secure client port each, after all the others
	}
	ports, err := freePorts(n*perServer + secure)
	if err != nil {
		return nil, endpoints{}, err
	}
	root, err := os.MkdirTemp("", "zktest-")
	if err != nil {
		return nil, endpoints{}, fmt.Errorf("zktest: temp dir: %w", err)
	}
	d := &localDriver{cfg: cfg, setup: setup, root: root}
	var peers strings.Builder
	if n > 1 {
		for i := range n {
			fmt.Fprintf(&peers, "server.%d=127.0.0.1:%d:%d\n", i+1, ports[n+2*i], ports[n+2*i+1])
		}
	}
	var eps endpoints
	for i := range n {
		s := &localServer{id: i + 1, dir: filepath.Join(root, fmt.Sprintf("zk%d", i+1)), clientPort: ports[i]}
		d.servers = append(d.servers, s)
		eps.plain = append(eps.plain, loopbackAddr(s.clientPort))
		if secure > 0 {
			s.securePort = ports[n*perServer+i]
			eps.secure = append(eps.secure, loopbackAddr(s.securePort))
		}
		if err := d.writeFiles(s, peers.String()); err != nil {
			cctx, cancel := cleanupContext(ctx)
			defer cancel()
			_ = d.close(cctx)
			return nil, endpoints{}, err
		}
	}
	for i := range n {
		if err := d.startServer(ctx, i); err != nil {
			cctx, cancel := cleanupContext(ctx)
			defer cancel()
			_ = d.close(cctx)
			return nil, endpoints{}, err
		}
	}
	return d, eps, nil
}

// writeFiles creates zoo.cfg, myid, log4j.properties and logback.xml for
// server s.
func (d *localDriver) writeFiles(s *localServer, peers string) error {
	dataDir := filepath.Join(s.dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	c := d.cfg
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\n", ms(c.tickTime))
	fmt.Fprintf(&b, "initLimit=%d\nsyncLimit=%d\n", c.initLimit(), c.syncLimit())
	fmt.Fprintf(&b, "dataDir=%s\n", dataDir)
	fmt.Fprintf(&b, "clientPort=%d\nclientPortAddress=127.0.0.1\n", s.clientPort)
	b.WriteString("admin.enableServer=false\nmaxClientCnxns=0\n4lw.commands.whitelist=*\n")
	fmt.Fprintf(&b, "minSessionTimeout=%d\nmaxSessionTimeout=%d\n", 2*ms(c.tickTime), ms(c.maxSessionTimeout))
	if f := c.tlsFiles; f != nil {
		for _, l := range f.secureCfg(s.securePort, "127.0.0.1", f.KeyStore, f.TrustStore) {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString(peers)
	files := map[string]string{
		filepath.Join(s.dir, "zoo.cfg"):          b.String(),
		filepath.Join(s.dir, "log4j.properties"): log4jConfig(filepath.Join(s.dir, "zookeeper.log")),
		filepath.Join(s.dir, "logback.xml"):      logbackConfig(filepath.Join(s.dir, "zookeeper.log")),
	}
	if peers != "" {
		files[filepath.Join(dataDir, "myid")] = fmt.Sprintf("%d\n", s.id)
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return fmt.Errorf("zktest: %w", err)
		}
	}
	return nil
}

// log4jConfig sends the server's log (log4j 1.2, as Debian's jars use) to a
// file in its directory instead of the console.
func log4jConfig(file string) string {
	return "log4j.rootLogger=INFO, FILE\n" +
		"log4j.appender.FILE=org.apache.log4j.FileAppender\n" +
		"log4j.appender.FILE.File=" + file + "\n" +
		"log4j.appender.FILE.Append=true\n" +
		"log4j.appender.FILE.layout=org.apache.log4j.PatternLayout\n" +
		"log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{1}: %m%n\n"
}

// logbackConfig does what log4jConfig does for logback, which the jars of
// upstream's releases since 3.8 use instead of log4j (Debian's keep log4j
// 1.2): without it logback logs to the console, which is console.log.
func logbackConfig(file string) string {
	return "<configuration>\n" +
		"  <appender name=\"FILE\" class=\"ch.qos.logback.core.FileAppender\">\n" +
		"    <file>" + file + "</file>\n" +
		"    <append>true</append>\n" +
		"    <encoder><pattern>%d{ISO8601} %-5level [%thread] %logger{0}: %msg%n</pattern></encoder>\n" +
		"  </appender>\n" +
		"  <root level=\"INFO\"><appender-ref ref=\"FILE\"/></root>\n" +
		"</configuration>\n"
}

func (d *localDriver) server(i int) (*localServer, error) {
	if i < 0 || i >= len(d.servers) {
		return nil, ErrBadIndex
	}
	return d.servers[i], nil
}

func (d *localDriver) startServer(_ context.Context, i int) error {
	s, err := d.server(i)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done != nil {
		select {
		case <-s.done:
		default:
			return errors.New("process still running")
		}
	}
	if err := removeCutLogs(filepath.Join(s.dir, "data", "version-2")); err != nil {
		return err
	}
	out, err := os.OpenFile(filepath.Join(s.dir, "console.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	args := []string{
		"-Xmx256m",
		"-XX:+UseSerialGC",
		"-Djava.net.preferIPv4Stack=true",
		"-Dlog4j.configuration=file:" + filepath.Join(s.dir, "log4j.properties"),
		"-Dlogback.configurationFile=" + filepath.Join(s.dir, "logback.xml"),
		"-Dzookeeper.log.dir=" + s.dir,
		"-Dzookeeper.root.logger=INFO,FILE",
		fmt.Sprintf("-Dznode.container.checkIntervalMs=%d", ms(d.cfg.containerCheck)),
		"-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.snapshot.trust.empty=true",
		"-Dzookeeper.extendedTypesEnabled=true", // TTL nodes (recipes/node)
	}
	if d.cfg.hooks != nil {
		args = append(args, d.cfg.hooks.jvmFlags...)
	}
	args = append(args,
		"-cp", d.setup.classpath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain",
		filepath.Join(s.dir, "zoo.cfg"),
	)
	// Not exec.CommandContext: the process must outlive the caller's ctx.
	cmd := exec.Command(d.setup.java, args...)
	cmd.Dir = s.dir
	cmd.Stdout = out
	cmd.Stderr = out
	// Own process group, so signals reach the JVM and anything it forks; and
	// killed if this process dies without Close.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return fmt.Errorf("zktest: start java: %w", err)
	}
	done := make(chan struct{})
	s.cmd, s.done, s.waitErr = cmd, done, nil
	go func() {
		err := cmd.Wait()
		_ = out.Close()
		s.mu.Lock()
		s.waitErr = err
		s.mu.Unlock()
		close(done)
	}()
	return nil
}

// current returns the live process's pid and done channel, or ok=false when
// no process runs.
func (s *localServer) current() (pid int, done chan struct{}, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.done == nil {
		return 0, nil, false
	}
	select {
	case <-s.done:
		return 0, nil, false
	default:
	}
	return s.cmd.Process.Pid, s.done, true
}

// signal sends sig to the server's process group.
func (d *localDriver) signal(i int, sig syscall.Signal) (chan struct{}, error) {
	s, err := d.server(i)
	if err != nil {
		return nil, err
	}
	pid, done, ok := s.current()
	if !ok {
		return nil, nil
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return done, fmt.Errorf("signal %v to process group %d: %w", sig, pid, err)
	}
	return done, nil
}

func (d *localDriver) stopServer(ctx context.Context, i int) error {
	done, err := d.signal(i, syscall.SIGTERM)
	if err != nil || done == nil {
		return err
	}
	grace := time.NewTimer(localStopGrace)
	defer grace.Stop()
	select {
	case <-done:
		return nil
	case <-grace.C:
	case <-ctx.Done():
	}
	// Too slow or the caller gave up: do not leave it half-stopped.
	return d.killServer(context.WithoutCancel(ctx), i, false)
}

func (d *localDriver) killServer(ctx context.Context, i int, _ bool) error {
	// SIGKILL ends a stopped (paused) process as well.
	done, err := d.signal(i, syscall.SIGKILL)
	if err != nil || done == nil {
		return err
	}
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return errors.New("process did not exit after SIGKILL")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *localDriver) pauseServer(_ context.Context, i int) error {
	_, err := d.signal(i, syscall.SIGSTOP)
	return err
}

func (d *localDriver) resumeServer(_ context.Context, i int) error {
	_, err := d.signal(i, syscall.SIGCONT)
	return err
}

func (d *localDriver) exited(_ context.Context, i int) error {
	s, err := d.server(i)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		return errors.New("never started")
	}
	select {
	case <-s.done:
		if s.waitErr != nil {
			return fmt.Errorf("java exited: %w", s.waitErr)
		}
		return errors.New("java exited")
	default:
		return nil
	}
}

func (d *localDriver) logTail(_ context.Context, i int) string {
	s, err := d.server(i)
	if err != nil {
		return ""
	}
	var parts []string
	for _, name := range []string{"console.log", "zookeeper.log"} {
		if t := fileTail(filepath.Join(s.dir, name), 30); t != "" {
			parts = append(parts, name+":\n"+t)
		}
	}
	return strings.Join(parts, "\n")
}

// fileTail returns the last n lines of a file, or "" when it cannot be read.
func fileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return lastLines(string(b), n)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (d *localDriver) close(ctx context.Context) error {
	var errs []error
	for i := range d.servers {
		if err := d.killServer(ctx, i, false); err != nil {
			errs = append(errs, fmt.Errorf("server %d: %w", i, err))
		}
	}
	if err := os.RemoveAll(d.root); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// describe names the version when it is not DefaultVersion.
func (d *localDriver) describe() string {
	if v := d.cfg.version; v != "" && v != DefaultVersion {
		return "version=" + v
	}
	return ""
}

// txnLogHeaderLen is the size of a ZooKeeper transaction log's header.
const txnLogHeaderLen = 16

// removeCutLogs removes the transaction logs in dir shorter than their
// header: what a SIGKILL right after ZooKeeper created a new log leaves, with
// no transaction in it. ZooKeeper 3.8 will not start with one (EOFException
// reading the header, as in ZOOKEEPER-1621), so a killed server could never
// come back. (The docker image's entrypoint does the same.)
func removeCutLogs(dir string) error {
	logs, err := filepath.Glob(filepath.Join(dir, "log.*"))
	if err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	for _, f := range logs {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() || st.Size() >= txnLogHeaderLen {
			continue
		}
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("zktest: removing a transaction log cut short: %w", err)
		}
	}
	return nil
}
