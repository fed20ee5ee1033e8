package zktest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

func TestNewConfigVersion(t *testing.T) {
	t.Setenv(EnvBackend, "")
	t.Setenv(EnvVersion, "")
	c, err := newConfig(nil)
	if err != nil || c.version != DefaultVersion || c.backend != backendAuto || VersionFromEnv() != DefaultVersion {
		t.Fatalf("default: version=%q backend=%q err=%v", c.version, c.backend, err)
	}
	// Another version takes the local backend when none is chosen.
	c, err = newConfig([]Option{WithVersion(Version39)})
	if err != nil || c.version != Version39 || c.backend != BackendLocal {
		t.Fatalf("WithVersion: version=%q backend=%q err=%v", c.version, c.backend, err)
	}
	// The default version stays on docker.
	c, err = newConfig([]Option{WithVersion(DefaultVersion), WithBackend(BackendDocker)})
	if err != nil || c.backend != BackendDocker {
		t.Fatalf("default version on docker: backend=%q err=%v", c.backend, err)
	}

	t.Setenv(EnvVersion, " 3.9.3 ")
	if VersionFromEnv() != Version39 {
		t.Errorf("VersionFromEnv = %q", VersionFromEnv())
	}
	c, err = newConfig(nil)
	if err != nil || c.version != Version39 || c.backend != BackendLocal {
		t.Fatalf("%s: version=%q backend=%q err=%v", EnvVersion, c.version, c.backend, err)
	}
	// The option wins over the environment; "" is the default.
	c, err = newConfig([]Option{WithVersion("")})
	if err != nil || c.version != DefaultVersion || c.backend != backendAuto {
		t.Fatalf(`WithVersion(""): version=%q backend=%q err=%v`, c.version, c.backend, err)
	}
	t.Setenv(EnvBackend, "docker")
	if _, err := newConfig(nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("%s=docker with %s=3.9.3: err = %v, want ErrInvalidOption", EnvBackend, EnvVersion, err)
	}

	t.Setenv(EnvBackend, "")
	t.Setenv(EnvVersion, "")
	cases := map[string][]Option{
		"a path":         {WithVersion("../../etc")},
		"a word":         {WithVersion("latest")},
		"a suffix":       {WithVersion("3.9.3-beta")},
		"docker":         {WithVersion(Version39), WithBackend(BackendDocker)},
		"TLS before 3.5": {WithVersion(Version34), WithTLS()},
	}
	for name, opts := range cases {
		if _, err := newConfig(opts); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: err = %v, want ErrInvalidOption", name, err)
		}
	}
	t.Setenv(EnvVersion, "3.9.x")
	if _, err := newConfig(nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("bad %s: err = %v", EnvVersion, err)
	}
}

func TestParseSrvrVersion(t *testing.T) {
	for reply, want := range map[string]string{
		"Zookeeper version: 3.9.3-${mvngit.commit.id}, built on 2026-03-08 16:19 UTC\nMode: standalone\n":        "3.9.3",
		"Zookeeper version: 3.4.13-6--1, built on Sat, 28 Oct 2023 23:16:44 +0200\nLatency min/avg/max: 0/0/0\n": "3.4.13",
		"Zookeeper version: 3.8.0\nMode: leader\n":                                                               "3.8.0",
	} {
		if got, err := parseSrvrVersion(reply); err != nil || got != want {
			t.Errorf("parseSrvrVersion(%q) = %q, %v; want %q", reply, got, err, want)
		}
	}
	for _, reply := range []string{"", "Mode: standalone\n", "Zookeeper version: unknown\n"} {
		if v, err := parseSrvrVersion(reply); err == nil {
			t.Errorf("parseSrvrVersion(%q) = %q, no error", reply, v)
		}
	}
	if versionBelow("3.9.3", 3, 5) || !versionBelow("3.4.13", 3, 5) || !versionBelow("2.9", 3, 5) || versionBelow("4.0", 3, 5) {
		t.Errorf("versionBelow")
	}
}

// TestVersionMissingJars: a version whose jars were not fetched fails Start
// with ErrNoBackend, naming the script that fetches them.
func TestVersionMissingJars(t *testing.T) {
	t.Setenv(EnvVersionsDir, t.TempDir())
	c, err := Start(testCtx(t, time.Minute), WithBackend(BackendLocal), WithVersion(Version39), WithLogger(discardLogger()))
	if !errors.Is(err, ErrNoBackend) || c != nil {
		t.Fatalf("Start = %v, %v; want ErrNoBackend", c, err)
	}
	if !strings.Contains(err.Error(), "fetch-zk-jars.sh "+Version39) {
		t.Errorf("error does not name the fetch: %v", err)
	}
}

// TestVersions starts a standalone server of each version that
// scripts/install-deps.sh fetches, through WithVersion on the local backend:
// srvr names the version, and the repo's client creates and reads a node.
// On 3.9 a persistent watch works (and TLS is served, with bookworm's
// netty); 3.4 answers AddWatch with ErrWatchUnsupported.
func TestVersions(t *testing.T) {
	for _, v := range []string{Version39, Version34} {
		t.Run(v, func(t *testing.T) {
			opts := []Option{WithBackend(BackendLocal), WithVersion(v), WithLogger(discardLogger())}
			if v == Version39 {
				opts = append(opts, WithTLS())
			}
			c := ForTest(t, opts...)
			ctx := testCtx(t, time.Minute)
			if got, err := c.ServerVersion(ctx, 0); err != nil || got != v {
				t.Fatalf("ServerVersion = %q, %v; want %q", got, err, v)
			}
			if s := c.String(); !strings.Contains(s, "version="+v) {
				t.Errorf("String() = %q does not name the version", s)
			}
			cl, err := client.New(client.WithServers(c.Addrs()...), client.WithSessionTimeout(10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cl.Close() })
			if err := cl.Start(ctx); err != nil {
				t.Fatalf("client Start on %s: %v", v, err)
			}
			if _, err := cl.Create(ctx, "/versions", []byte(v), 0); err != nil {
				t.Fatalf("Create on %s: %v", v, err)
			}
			if data, _, err := cl.Get(ctx, "/versions"); err != nil || string(data) != v {
				t.Fatalf("Get on %s = %q, %v", v, data, err)
			}
			w, err := cl.AddWatch(ctx, "/versions", true)
			if v == Version34 {
				if !errors.Is(err, client.ErrWatchUnsupported) {
					t.Fatalf("AddWatch on %s: err = %v, want ErrWatchUnsupported", v, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("AddWatch on %s: %v", v, err)
			}
			if _, err := cl.Create(ctx, "/versions/child", nil, 0); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-w.Events():
				// 3.9 sends the change's zxid with the notification.
				if ev.Path != "/versions/child" || ev.Zxid <= 0 {
					t.Errorf("persistent watch event %+v, want one for /versions/child with its zxid", ev)
				}
			case <-ctx.Done():
				t.Fatalf("no persistent watch event on %s", v)
			}
		})
	}
}

// TestVersionJarsLayout checks what scripts/fetch-zk-jars.sh left: every
// version's lib directory holds zookeeper.jar and the log4j binding the
// harness configures.
func TestVersionJarsLayout(t *testing.T) {
	for _, v := range []string{Version39, Version34} {
		dir := versionDir(v)
		for _, jar := range []string{"zookeeper.jar", "slf4j-api.jar", "slf4j-log4j12.jar", "log4j-1.2.jar"} {
			if _, err := os.Stat(filepath.Join(dir, jar)); err != nil {
				t.Errorf("ZooKeeper %s: %v (run scripts/fetch-zk-jars.sh %s as root)", v, err, v)
			}
		}
	}
}
