package faultlink

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// linkZKJars are the Debian zookeeper package's jars a standalone server needs.
var linkZKJars = []string{
	"/usr/share/java/zookeeper.jar",
	"/usr/share/java/zookeeper-jute.jar",
	"/usr/share/java/slf4j-api.jar",
	"/usr/share/java/log4j-1.2.jar",
	"/usr/share/java/netty-all.jar",
}

// linkZKLogBinding routes the server's logging to log4j, when installed;
// without it the server logs nothing, which only makes failures harder to read.
const linkZKLogBinding = "/usr/share/java/slf4j-log4j12.jar"

// linkZKStart runs a standalone ZooKeeper on a free loopback port in its own
// java process, waits until it serves clients, and stops it at cleanup. It
// returns the client address.
func linkZKStart(t *testing.T) string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("this test needs a ZooKeeper server: java is not on PATH (%v); install it with: apt-get install -y zookeeper", err)
	}
	for _, jar := range linkZKJars {
		if _, err := os.Stat(jar); err != nil {
			t.Fatalf("this test needs a ZooKeeper server: %v; install it with: apt-get install -y zookeeper", err)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	dir := t.TempDir()
	cfg := strings.Join([]string{
		"tickTime=500",
		"dataDir=" + filepath.Join(dir, "data"),
		"clientPort=" + strconv.Itoa(port),
		"clientPortAddress=127.0.0.1",
		"admin.enableServer=false",
		"maxClientCnxns=0",
		"4lw.commands.whitelist=*",
		"",
	}, "\n")
	logCfg := "log4j.rootLogger=INFO, CONSOLE\n" +
		"log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender\n" +
		"log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout\n" +
		"log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %m%n\n"
	cfgPath := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "log4j.properties"), []byte(logCfg), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()

	classpath := append([]string{dir}, linkZKJars...)
	if _, err := os.Stat(linkZKLogBinding); err == nil {
		classpath = append(classpath, linkZKLogBinding)
	}
	cp := strings.Join(classpath, ":")
	cmd := exec.Command(java, "-cp", cp, "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfgPath)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start ZooKeeper: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			if out, err := os.ReadFile(logPath); err == nil {
				t.Logf("ZooKeeper log:\n%s", linkZKTail(out, 4000))
			}
		}
	})

	deadline := time.Now().Add(60 * time.Second)
	for {
		if linkZKServing(addr) {
			return addr
		}
		select {
		case err := <-exited:
			exited <- err
			out, _ := os.ReadFile(logPath)
			t.Fatalf("ZooKeeper exited before serving (%v):\n%s", err, linkZKTail(out, 4000))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("ZooKeeper on %s was not serving within 60s", addr)
		}
	}
}

func linkZKTail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// linkZKServing reports whether a server at addr serves clients: srvr names
// its mode only once it does (ruok answers imok earlier).
func linkZKServing(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("srvr")); err != nil {
		return false
	}
	out, _ := io.ReadAll(c)
	return bytes.Contains(out, []byte("Mode: "))
}

// linkZKLog collects the client's log lines, to show them if the test fails.
type linkZKLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *linkZKLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *linkZKLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// linkZKWaitState waits for a transition to the given state.
func linkZKWaitState(t *testing.T, states <-chan client.StateChange, want client.State, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case ev, ok := <-states:
			if !ok {
				t.Fatalf("state channel closed while waiting for %v", want)
			}
			if ev.State == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %v transition within %v", want, within)
		}
	}
}

func TestLinkWithRealZooKeeper(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	addr := linkZKStart(t)

	link := New()
	defer link.Close()
	logs := &linkZKLog{}
	// No retries: each operation is one request, as on a bare connection,
	// so that the requests counted and the error of a dropped reply are
	// the test's own.
	never, err := retry.NTimes(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := client.New(client.WithServers(addr), client.WithSessionTimeout(8*time.Second),
		client.WithDialer(link.Dial),
		client.WithRetryPolicy(never),
		client.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	defer conn.Close()
	states, stop := conn.Subscribe()
	defer stop()
	defer func() {
		if t.Failed() {
			t.Logf("client log:\n%s", logs)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := conn.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	linkZKWaitState(t, states, client.StateConnected, 30*time.Second)
	session := conn.Session().ID()
	dials := link.Dials()
	if dials < 1 {
		t.Fatalf("Dials() = %d with a session established, want at least 1", dials)
	}

	// Requests are counted by opcode.
	if _, err := conn.Create(ctx, "/a", []byte("a"), 0); err != nil {
		t.Fatalf("create /a: %v", err)
	}
	if _, _, err := conn.Get(ctx, "/a"); err != nil {
		t.Fatalf("get /a: %v", err)
	}
	if got := link.Requests(OpCreate); got != 1 {
		t.Fatalf("Requests(OpCreate) = %d, want 1", got)
	}
	if got := link.Requests(OpGetData); got != 1 {
		t.Fatalf("Requests(OpGetData) = %d, want 1", got)
	}

	// A dropped reply: the client sees connection loss, the server did the work.
	fired := link.DropReplyTo(OpCreate)
	_, err = conn.Create(ctx, "/b", []byte("b"), 0)
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("create /b with its reply dropped: %v, want zk.ErrConnectionClosed", err)
	}
	select {
	case <-fired:
	default:
		t.Fatal("DropReplyTo channel not closed although the create failed")
	}
	linkZKWaitState(t, states, client.StateReconnected, 30*time.Second)
	if ok, _, err := conn.Exists(ctx, "/b"); err != nil || !ok {
		t.Fatalf("exists /b after the dropped reply: %v, %v; want true: the server should have created it", ok, err)
	}
	if got := conn.Session().ID(); got != session {
		t.Fatalf("session changed from %x to %x after a dropped reply", session, got)
	}

	// Cut: the client loses its connection at once and cannot redial; after
	// Restore it resumes the same session.
	link.Cut()
	linkZKWaitState(t, states, client.StateSuspended, 10*time.Second)
	if _, err := link.Dial("tcp", addr, time.Second); !errors.Is(err, ErrCut) {
		t.Fatalf("dial while cut: %v, want ErrCut", err)
	}
	dials = link.Dials()
	link.Restore()
	linkZKWaitState(t, states, client.StateReconnected, 30*time.Second)
	if got := conn.Session().ID(); got != session {
		t.Fatalf("session changed from %x to %x after a short cut", session, got)
	}
	if got := link.Dials(); got <= dials {
		t.Fatalf("Dials() = %d after reconnecting, want more than %d", got, dials)
	}

	// Blackhole: the client notices only through its own timeouts.
	link.Blackhole()
	linkZKWaitState(t, states, client.StateSuspended, 30*time.Second)
	link.Restore()
	linkZKWaitState(t, states, client.StateReconnected, 30*time.Second)
	if _, _, err := conn.Get(ctx, "/a"); err != nil {
		t.Fatalf("get /a after the blackhole: %v", err)
	}
}
