package zkprom_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/contrib/zkprom"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The metrics of one client on a registry, served for Prometheus. Here the
// hooks are called by hand, as a mutex would call them, and /metrics is
// fetched and filtered.
func Example() {
	m, err := zkprom.New()
	if err != nil {
		log.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	// What client.New(..., client.WithHooks(m.Hooks())) and a mutex report:
	h := m.Hooks()
	_, done := h.Acquire(context.Background(), client.Acquisition{Recipe: client.RecipeMutex, Path: "/locks/job"})
	done(client.AcquireOutcome{Wait: 3 * time.Millisecond})
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/job", Held: 2 * time.Second})

	resp, err := http.Get(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range strings.Split(string(text), "\n") {
		if strings.Contains(l, `recipe="mutex"`) && (strings.Contains(l, `le="0.005"`) || strings.Contains(l, `le="5"`)) {
			fmt.Println(l)
		}
	}
	// Output:
	// zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="0.005"} 1
	// zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="5"} 1
	// zkrecipes_acquire_wait_seconds_bucket{outcome="busy",recipe="mutex",le="0.005"} 0
	// zkrecipes_acquire_wait_seconds_bucket{outcome="busy",recipe="mutex",le="5"} 0
	// zkrecipes_acquire_wait_seconds_bucket{outcome="cancelled",recipe="mutex",le="0.005"} 0
	// zkrecipes_acquire_wait_seconds_bucket{outcome="cancelled",recipe="mutex",le="5"} 0
	// zkrecipes_acquire_wait_seconds_bucket{outcome="failed",recipe="mutex",le="0.005"} 0
	// zkrecipes_acquire_wait_seconds_bucket{outcome="failed",recipe="mutex",le="5"} 0
	// zkrecipes_hold_seconds_bucket{ended="lost",recipe="mutex",le="5"} 0
	// zkrecipes_hold_seconds_bucket{ended="released",recipe="mutex",le="5"} 1
}

// Wiring a service: one Metrics per client, registered on the default
// registry and served on /metrics; every recipe on the client reports.
func Example_client() {
	m, err := zkprom.New(zkprom.WithConstLabels(prometheus.Labels{"client": "jobs"}))
	if err != nil {
		log.Fatal(err)
	}
	prometheus.MustRegister(m)
	http.Handle("/metrics", promhttp.Handler())
	go func() { log.Fatal(http.ListenAndServe(":9100", nil)) }()

	c, err := client.New(client.WithServers("zk1:2181", "zk2:2181", "zk3:2181"), client.WithHooks(m.Hooks()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	lock, err := mutex.New(c, "/locks/job")
	if err != nil {
		log.Fatal(err)
	}
	if err := lock.Lock(ctx); err != nil { // zkrecipes_acquire_wait_seconds{recipe="mutex"}
		log.Fatal(err)
	}
	defer func() { _ = lock.Unlock(ctx) }() // zkrecipes_hold_seconds{recipe="mutex"}
}
