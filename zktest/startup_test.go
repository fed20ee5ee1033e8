package zktest

import (
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// An explicit docker backend with an image that is not there is an error,
// never a fallback to the local backend.
func TestExplicitDockerMissingImage(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	logger, logs := captureLogger()
	c, err := Start(testCtx(t, time.Minute), WithBackend(BackendDocker), WithImage(missingImage), WithLogger(logger))
	if err == nil {
		_ = c.Close()
		t.Fatalf("Start succeeded with %s (backend %s)", missingImage, c.Backend())
	}
	if !errors.Is(err, ErrNoBackend) || c != nil {
		t.Fatalf("Start = %v, %v; want ErrNoBackend", c, err)
	}
	if strings.Contains(logs.String(), "backend=local") {
		t.Fatalf("fell back to local:\n%s", logs)
	}
}

// The same holds through ZK_BACKEND.
func TestEnvDockerMissingImage(t *testing.T) {
	t.Setenv(EnvBackend, "docker")
	t.Setenv(EnvImage, missingImage)
	c, err := Start(testCtx(t, time.Minute))
	if !errors.Is(err, ErrNoBackend) || c != nil {
		t.Fatalf("Start = %v, %v; want ErrNoBackend", c, err)
	}
	if !strings.Contains(err.Error(), missingImage) {
		t.Errorf("error does not name the image: %v", err)
	}
}

func TestLocalWithoutJava(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c, err := Start(testCtx(t, time.Minute), WithBackend(BackendLocal))
	if !errors.Is(err, ErrNoBackend) || c != nil {
		t.Fatalf("Start = %v, %v; want ErrNoBackend", c, err)
	}
	if !strings.Contains(err.Error(), "java") {
		t.Errorf("error does not mention java: %v", err)
	}
}

func TestAutoWithNoBackend(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c, err := Start(testCtx(t, time.Minute), WithBackend("auto"), WithImage(missingImage), WithLogger(discardLogger()))
	if !errors.Is(err, ErrNoBackend) || c != nil {
		t.Fatalf("Start = %v, %v; want ErrNoBackend", c, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "docker:") || !strings.Contains(msg, "local:") {
		t.Errorf("error does not give both reasons: %v", err)
	}
}

// A server that cannot start makes Start fail promptly with its log, and
// leaves nothing behind.
func TestStartFailureCleansUp(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, b := range selectedBackends(t) {
		t.Run(string(b), func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp) // the local backend's directories go here
			var drv driver
			hooks := &testHooks{
				jvmFlags: []string{"-XX:+ZkharnessNoSuchOption"},
				launched: func(d driver) { drv = d },
			}
			opts := []Option{WithBackend(b), WithServers(2), WithLogger(discardLogger()), func(c *config) error { c.hooks = hooks; return nil }}
			c, err := Start(testCtx(t, 2*time.Minute), opts...)
			if err == nil {
				_ = c.Close()
				t.Fatalf("Start succeeded with a bad JVM flag")
			}
			t.Logf("Start failed as expected: %v", err)
			if errors.Is(err, ErrNoBackend) {
				t.Fatalf("Start: %v", err)
			}
			if !strings.Contains(err.Error(), "ZkharnessNoSuchOption") {
				t.Errorf("error lacks the server's log: %v", err)
			}
			if drv == nil {
				t.Fatalf("no driver was launched")
			}
			if left := leftovers(t, drv); len(left) > 0 {
				t.Fatalf("failed Start left %v", left)
			}
			if b == BackendLocal {
				if dirs, _ := filepath.Glob(filepath.Join(tmp, "zktest-*")); len(dirs) > 0 {
					t.Fatalf("failed Start left %v", dirs)
				}
			}
		})
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Close may race with lifecycle calls and waits: everything returns, nothing
// is left behind, and the race detector stays quiet.
func TestCloseRacesWithOperations(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	backends := selectedBackends(t)
	b := backends[len(backends)-1] // local when selected: the cheaper one
	c, err := Start(testCtx(t, 2*time.Minute), WithBackend(b), WithLogger(discardLogger()))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ctx := testCtx(t, time.Minute)
	var wg sync.WaitGroup
	ops := []func() error{
		func() error { return c.StopServer(ctx, 0) },
		func() error { return c.StartServer(ctx, 0) },
		func() error { return c.PauseServer(ctx, 0) },
		func() error { return c.ResumeServer(ctx, 0) },
		func() error { return c.WaitServing(ctx, 0) },
		func() error { _, err := c.Mode(ctx, 0); return err },
		c.Close,
	}
	for _, op := range ops {
		wg.Go(func() { _ = op() })
	}
	wg.Wait()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := leftovers(t, c.drv); len(left) > 0 {
		t.Fatalf("left %v", left)
	}
}
