package zktest

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	zkclient "github.com/go-zkrecipes/zkrecipes/client"
)

// missingImage names an image that exists nowhere.
const missingImage = "zktest.invalid/missing:never"

// selectedBackends returns the backends this run exercises: the one forced by
// ZK_BACKEND, or both when it is empty or "auto" (a machine of this project has
// both; CI sets ZK_BACKEND=local where docker cannot run).
func selectedBackends(t *testing.T) []Backend {
	t.Helper()
	b, err := parseBackend(os.Getenv(EnvBackend))
	if err != nil {
		t.Fatalf("%s: %v", EnvBackend, err)
	}
	if b == backendAuto {
		return []Backend{BackendDocker, BackendLocal}
	}
	return []Backend{b}
}

// testCtx returns a context that ends with the test or after d.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func captureLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelInfo})), buf
}

// connect starts a zkrecipes client on servers and waits until it has a
// session; the test's cleanup closes it.
func connect(t *testing.T, servers []string, session time.Duration) *zkclient.Client {
	t.Helper()
	cl, err := zkclient.New(zkclient.WithServers(servers...), zkclient.WithSessionTimeout(session),
		zkclient.WithLogger(discardLogger()))
	if err != nil {
		t.Fatalf("client.New(%v): %v", servers, err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	if err := cl.Start(testCtx(t, 30*time.Second)); err != nil {
		t.Fatalf("no session with %v within 30s: %v", servers, err)
	}
	return cl
}

// eventually retries f until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// getData reads path through a fresh session with servers.
func getData(t *testing.T, servers []string, path string) string {
	t.Helper()
	cl := connect(t, servers, 10*time.Second)
	defer cl.Close()
	ctx := testCtx(t, 30*time.Second)
	// Sync and read on the same connection, unretried.
	conn, err := cl.Conn(ctx)
	if err != nil {
		t.Fatalf("connection to %v: %v", servers, err)
	}
	if _, err := conn.Sync(ctx, path); err != nil {
		t.Fatalf("sync %s: %v", path, err)
	}
	data, _, err := conn.Get(ctx, path)
	if err != nil {
		t.Fatalf("get %s from %v: %v", path, servers, err)
	}
	return string(data)
}

// assertRefused checks that nothing accepts connections on addr.
func assertRefused(t *testing.T, addr string) {
	t.Helper()
	// docker may need a moment to drop its proxy after the container stops.
	eventually(t, 10*time.Second, "port "+addr+" refuses", func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				return nil
			}
			return err
		}
		_ = c.Close()
		return errors.New("connection accepted")
	})
}

// leftovers lists what a closed cluster may have left behind: containers and
// networks labelled with its id (docker), java processes and the temporary
// directory (local).
func leftovers(t *testing.T, drv driver) []string {
	t.Helper()
	var found []string
	switch d := drv.(type) {
	case *dockerDriver:
		ctx := testCtx(t, 30*time.Second)
		cli, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			t.Fatalf("docker client: %v", err)
		}
		defer cli.Close()
		filter := client.Filters{}.Add("label", LabelCluster+"="+d.id)
		ctrs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: filter})
		if err != nil {
			t.Fatalf("container list: %v", err)
		}
		for _, x := range ctrs.Items {
			found = append(found, "container "+x.ID)
		}
		nets, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: filter})
		if err != nil {
			t.Fatalf("network list: %v", err)
		}
		for _, x := range nets.Items {
			found = append(found, "network "+x.Name)
		}
	case *localDriver:
		found = append(found, processesMentioning(t, d.root)...)
		if _, err := os.Stat(d.root); !errors.Is(err, os.ErrNotExist) {
			found = append(found, "directory "+d.root)
		}
	default:
		t.Fatalf("unknown driver %T", drv)
	}
	return found
}

// processesMentioning lists live processes whose command line contains s.
func processesMentioning(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile
		}
		if strings.Contains(string(b), s) {
			found = append(found, "process "+filepath.Base(filepath.Dir(f)))
		}
	}
	return found
}

// closeAndCheck closes c and asserts that nothing was left behind and that
// the closed cluster refuses further work.
func closeAndCheck(t *testing.T, c *Cluster) {
	t.Helper()
	addrs := c.Addrs()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if left := leftovers(t, c.drv); len(left) > 0 {
		t.Fatalf("Close left %v", left)
	}
	for _, a := range addrs {
		assertRefused(t, a)
	}
	ctx := testCtx(t, 10*time.Second)
	for name, err := range map[string]error{
		"StopServer":  c.StopServer(ctx, 0),
		"StartServer": c.StartServer(ctx, 0),
		"PauseServer": c.PauseServer(ctx, 0),
		"WaitServing": c.WaitServing(ctx, 0),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: got %v, want ErrClosed", name, err)
		}
	}
}
