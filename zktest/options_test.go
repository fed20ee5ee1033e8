package zktest

import (
	"errors"
	"testing"
	"time"
)

func TestNewConfigDefaults(t *testing.T) {
	t.Setenv(EnvBackend, "")
	t.Setenv(EnvImage, "")
	t.Setenv(EnvVersion, "")
	c, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.servers != 1 || c.backend != backendAuto || c.image != DefaultImage ||
		c.tickTime != 200*time.Millisecond || c.maxSessionTimeout != time.Minute ||
		c.containerCheck != 500*time.Millisecond || c.logger == nil {
		t.Fatalf("defaults: %+v", c)
	}
	if c.initLimit() != 20 || c.syncLimit() != 10 {
		t.Errorf("initLimit=%d syncLimit=%d for a 200ms tick", c.initLimit(), c.syncLimit())
	}
}

func TestNewConfigEnvironment(t *testing.T) {
	t.Setenv(EnvVersion, "")
	t.Setenv(EnvBackend, "LOCAL")
	t.Setenv(EnvImage, "example/zk:1")
	c, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.backend != BackendLocal || c.image != "example/zk:1" || ImageFromEnv() != "example/zk:1" {
		t.Fatalf("backend=%q image=%q", c.backend, c.image)
	}
	// Options win over the environment.
	c, err = newConfig([]Option{WithBackend(BackendDocker), WithImage("other:2")})
	if err != nil {
		t.Fatal(err)
	}
	if c.backend != BackendDocker || c.image != "other:2" {
		t.Fatalf("backend=%q image=%q", c.backend, c.image)
	}
	t.Setenv(EnvBackend, "auto")
	if c, err := newConfig(nil); err != nil || c.backend != backendAuto {
		t.Fatalf("auto: %q, %v", c.backend, err)
	}
}

func TestNewConfigRejects(t *testing.T) {
	t.Setenv(EnvBackend, "")
	t.Setenv(EnvVersion, "")
	cases := map[string][]Option{
		"zero servers":     {WithServers(0)},
		"negative servers": {WithServers(-3)},
		"unknown backend":  {WithBackend("podman")},
		"zero tick":        {WithTickTime(0)},
		"session < 2 tick": {WithTickTime(time.Second), WithMaxSessionTimeout(time.Second)},
		"zero check":       {WithContainerCheckInterval(0)},
	}
	for name, opts := range cases {
		if _, err := newConfig(opts); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: err = %v, want ErrInvalidOption", name, err)
		}
	}
	t.Setenv(EnvBackend, "kubernetes")
	if _, err := newConfig(nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("bad %s: err = %v", EnvBackend, err)
	}
}

func TestStartRejectsBadOptions(t *testing.T) {
	c, err := Start(testCtx(t, 10*time.Second), WithServers(0))
	if !errors.Is(err, ErrInvalidOption) || c != nil {
		t.Fatalf("Start(WithServers(0)) = %v, %v", c, err)
	}
}

func TestTickLimits(t *testing.T) {
	c := config{tickTime: 2 * time.Second}
	if c.initLimit() != 10 || c.syncLimit() != 5 {
		t.Errorf("2s tick: initLimit=%d syncLimit=%d", c.initLimit(), c.syncLimit())
	}
	if ms(300*time.Microsecond) != 1 || ms(1500*time.Millisecond) != 1500 {
		t.Errorf("ms rounding")
	}
}

// A Cluster not made by Start must not panic.
func TestZeroCluster(t *testing.T) {
	var c Cluster
	ctx := testCtx(t, 5*time.Second)
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if s := c.String(); s == "" {
		t.Errorf("String is empty")
	}
	if err := c.StopServer(ctx, 0); !errors.Is(err, ErrBadIndex) {
		t.Errorf("StopServer: %v", err)
	}
	if err := c.WaitServing(ctx, 0); !errors.Is(err, ErrBadIndex) {
		t.Errorf("WaitServing: %v", err)
	}
	if _, err := c.Leader(ctx); err == nil {
		t.Errorf("Leader: no error")
	}
	if c.Size() != 0 || c.Addr(0) != "" || c.ConnectString() != "" || len(c.Addrs()) != 0 {
		t.Errorf("zero cluster has addresses")
	}
	var nilCluster *Cluster
	if err := nilCluster.Close(); err != nil {
		t.Errorf("nil Close: %v", err)
	}
}
