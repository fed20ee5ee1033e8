package zktest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// scratchTest is the whole test file of the scratch module: what a user
// writes in a module of their own, with zktest's documented API, the client,
// recipes/mutex and the library's shared errors only.
const scratchTest = `package zkuser_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

const lockPath = "/locks/job"

func connect(t *testing.T, ctx context.Context, servers []string, link *faultlink.Link) *client.Client {
	t.Helper()
	opts := []client.Option{client.WithServers(servers...), client.WithSessionTimeout(10 * time.Second)}
	if link != nil {
		opts = append(opts, client.WithDialer(link.Dial))
	}
	c, err := client.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

func newMutex(t *testing.T, c *client.Client) *mutex.Mutex {
	t.Helper()
	m, err := mutex.New(c, lockPath)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func waitLost(t *testing.T, ctx context.Context, m *mutex.Mutex, why string) {
	t.Helper()
	select {
	case <-m.Lost():
	case <-ctx.Done():
		t.Fatalf("%s: the holder never learnt its lock was gone", why)
	}
}

func TestMutexOnRealZooKeeper(t *testing.T) {
	zk := zktest.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	link := faultlink.New()
	t.Cleanup(link.Close) // after the client's Close
	c1 := connect(t, ctx, zk.Addrs(), link)
	c2 := connect(t, ctx, zk.Addrs(), nil)

	// Exclusion: two processes (clients), two goroutines on each handle.
	var holders, most, rounds atomic.Int32
	var wg sync.WaitGroup
	for _, c := range []*client.Client{c1, c2} {
		m := newMutex(t, c)
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					if err := m.Lock(ctx); err != nil {
						t.Error("Lock:", err)
						return
					}
					n := holders.Add(1)
					for {
						old := most.Load()
						if n <= old || most.CompareAndSwap(old, n) {
							break
						}
					}
					time.Sleep(2 * time.Millisecond)
					holders.Add(-1)
					rounds.Add(1)
					if err := m.Unlock(ctx); err != nil {
						t.Error("Unlock:", err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if most.Load() != 1 || rounds.Load() != 20 {
		t.Fatalf("%d holders at once (want 1), %d rounds (want 20)", most.Load(), rounds.Load())
	}

	// A session expired on the server: the holder learns, the other
	// process acquires, and the old holder's Unlock reports the loss.
	m1, m2 := newMutex(t, c1), newMutex(t, c2)
	if err := m1.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := link.ExpireSession(ctx); err != nil {
		t.Fatal("ExpireSession:", err)
	}
	waitLost(t, ctx, m1, "session expired")
	if err := m2.Lock(ctx); err != nil {
		t.Fatal("Lock after the holder's session expired:", err)
	}
	if err := m1.Unlock(ctx); !errors.Is(err, zkrecipes.ErrLost) {
		t.Fatalf("Unlock of the expired holding: %v, want ErrLost", err)
	}

	// The server stops: the holder learns; once it is back, Unlock
	// reports the loss and removes the node.
	if err := zk.StopServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	waitLost(t, ctx, m2, "server stopped")
	if err := zk.StartServer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := m2.Unlock(ctx); !errors.Is(err, zkrecipes.ErrLost) {
		t.Fatalf("Unlock after the server stopped: %v, want ErrLost", err)
	}
	kids, _, err := c2.Children(ctx, lockPath)
	if err != nil || len(kids) != 0 {
		t.Fatalf("lock nodes left: %v, %v", kids, err)
	}
}
`

// TestScratchModule is a user's test in a module of its own, outside this
// repository's packages: a go.mod that requires the library (replaced by
// this checkout) and a test that uses only zktest's documented API, the
// client, recipes/mutex and the root package's errors. It starts a server,
// runs a mutex exclusion test, expires the holder's session through
// faultlink and stops the server, and checks the holders learn of it. go test runs it with the
// module cache and GOPROXY of the environment and -mod=mod, so its go.mod
// needs nothing but the require and the replace.
func TestScratchModule(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	rootMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go [0-9.]+$`).Find(rootMod)
	if goLine == nil {
		t.Fatal("the repository's go.mod has no go directive")
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	mod := "module example.com/zkuser\n\n" + string(goLine) + "\n\n" +
		"require github.com/go-zkrecipes/zkrecipes v0.0.0-00010101000000-000000000000\n\n" +
		"replace github.com/go-zkrecipes/zkrecipes => " + root + "\n"
	files := map[string][]byte{
		"go.mod":         []byte(mod),
		"go.sum":         sum, // the checksums the module's graph needs, as the repository verified them
		"zkuser_test.go": []byte(scratchTest),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// go test puts its own GOROOT/bin first on the test binary's PATH, so
	// this finds the go command that runs the test.
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "test", "-race", "-count=1", "-v", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"),
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("go test in the scratch module (%v):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("the scratch module's test failed: %v", err)
		}
		t.Fatalf("go test did not run: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestMutexOnRealZooKeeper") {
		t.Fatal("the scratch module's test did not report a pass")
	}
}
