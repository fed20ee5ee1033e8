package zkprom_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/contrib/zkprom"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestNewcomer is a service written from the README and docs/ alone, as a new user
// would write it: a client with the Prometheus adapter's hooks, a
// persistent node, a group member, a service registration and a provider,
// a cache, a barrier, a counter and a mutex, all working in a loop on a
// throwaway server. The server is killed in the middle of the run, then the
// service's context is cancelled, and the service shuts down (its workers
// back, every deferred Close returned) within about 2 s of that, printing
// how long it took, with no INFO line from the library at the logger's
// default level, and with the gauges of holders and waiters back at 0.
func TestNewcomer(t *testing.T) {
	defer goleak.VerifyNone(t)
	zk := zktest.ForTest(t)

	metrics, err := zkprom.New()
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics)
	logs := &lines{}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, zk.Addrs(), metrics, slog.New(slog.NewTextHandler(logs, nil)), running)
	}()
	select {
	case <-running:
	case err := <-done:
		t.Fatalf("the service did not start: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // the workers at work
	if err := zk.KillServer(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the workers find the server gone
	cancel()
	ended := time.Now()
	err = <-done
	took := time.Since(ended)
	t.Logf("shut down in %v after the context ended (server killed), serve: %v", took.Round(time.Millisecond), err)
	// The goal: every deferred Close done within 2 s of the end of ctx,
	// with the server gone (no call waits more than a second for a lost
	// connection; the Closes share one shutdown context).
	if took > 2*time.Second {
		t.Errorf("the service took %v to shut down, want at most 2s", took)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("serve: %v", err)
	}

	for _, l := range logs.all() {
		if strings.Contains(l, "level=INFO") {
			t.Errorf("the library logged at INFO: %s", l)
		}
	}
	t.Logf("the library's lines at the default level:\n%s", strings.Join(logs.all(), "\n"))
	// What was held and waited for is no more: the gauges went back to 0
	// through the kill and the shutdown.
	for _, g := range []string{"zkrecipes_holders", "zkrecipes_waiters"} {
		if v, ok := gauge(t, reg, g, "mutex"); !ok || v != 0 {
			t.Errorf("%s{recipe=\"mutex\"} = %v (found %v) after the shutdown, want 0", g, v, ok)
		}
	}
	if n := requests(t, reg); n == 0 {
		t.Error("no request counted")
	} else {
		t.Logf("%d requests counted by zkprom", n)
	}
}

// serve is the service: it returns once ctx ends and everything is closed.
func serve(ctx context.Context, servers []string, metrics *zkprom.Metrics, log *slog.Logger, running chan<- struct{}) error {
	c, err := client.New(
		client.WithServers(servers...),
		client.WithSessionTimeout(2*time.Second),
		client.WithNamespace("newcomer"),
		client.WithHooks(metrics.Hooks()),
		client.WithLogger(log),
	)
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Close()
	// The Closes below share one shutdown context, which ends a second
	// after ctx: without a connection each Close would wait up to a second
	// for one, one Close after the other.
	shutdown, endShutdown := context.WithCancel(context.Background())
	defer endShutdown()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(time.Second, endShutdown) })()

	me, err := node.New(c, "/services/api/i-1", []byte("10.0.0.1:8080"))
	if err != nil {
		return err
	}
	if err := me.Start(ctx); err != nil {
		return err
	}
	defer me.Close(shutdown)

	member, err := group.New(c, "/groups/workers", "worker-1", []byte("10.0.0.1:8080"))
	if err != nil {
		return err
	}
	if err := member.Start(ctx); err != nil {
		return err
	}
	defer member.Close(shutdown)

	d, err := discovery.New(c, "/discovery")
	if err != nil {
		return err
	}
	defer d.Close(shutdown)
	inst := discovery.NewInstance("api")
	inst.Port = 8080
	if err := d.Register(ctx, inst); err != nil {
		return err
	}
	p, err := d.NewProvider("api")
	if err != nil {
		return err
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	if _, err := p.GetInstance(); err != nil {
		return err
	}

	view, err := cache.New(c, "/groups")
	if err != nil {
		return err
	}
	events, stop := view.Events()
	defer stop()
	if err := view.Start(ctx); err != nil {
		return err
	}
	defer view.Close(shutdown)

	gate, err := barrier.New(c, "/gate")
	if err != nil {
		return err
	}
	if err := gate.Set(ctx); err != nil {
		return err
	}

	hits, err := counter.New(c, "/stats/hits")
	if err != nil {
		return err
	}
	lock, err := mutex.New(c, "/jobs/nightly")
	if err != nil {
		return err
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { // follow the cache's events until ctx ends
		for {
			select {
			case <-events:
			case <-ctx.Done():
				return
			}
		}
	})
	wg.Go(func() { // waits at the gate until it opens
		_ = gate.Wait(ctx)
	})
	wg.Go(func() { // counts and locks until ctx ends
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := hits.Increment(ctx); err != nil {
				continue
			}
			if err := lock.Lock(ctx); err != nil {
				continue
			}
			_ = me.SetData(ctx, fmt.Appendf(nil, "10.0.0.1:8080 %d", i))
			_ = lock.Unlock(ctx)
			if i == 3 {
				_ = gate.Remove(ctx)
			}
		}
	})
	close(running)
	<-ctx.Done()
	return ctx.Err()
}

// lines is an io.Writer that keeps the lines written to it.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.buf.String()), "\n")
}

// requests is the number of requests the metrics counted, of every op.
func requests(t *testing.T, reg *prometheus.Registry) uint64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if f.GetName() == "zkrecipes_request_duration_seconds" {
			for _, m := range f.GetMetric() {
				n += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return n
}

// gauge is the value of the gauge name of recipe.
func gauge(t *testing.T, reg *prometheus.Registry, name, recipe string) (float64, bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "recipe" && l.GetValue() == recipe {
					return m.GetGauge().GetValue(), true
				}
			}
		}
	}
	return 0, false
}
