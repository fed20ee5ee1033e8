package zkprom

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestBadOptions: each bad option is an error wrapping ErrInvalidOption,
// from New rather than at registration.
func TestBadOptions(t *testing.T) {
	for name, opt := range map[string]Option{
		"nil option":              nil,
		"no wait buckets":         WithWaitBuckets(),
		"decreasing hold buckets": WithHoldBuckets(1, 0.5),
		"repeated state bucket":   WithStateBuckets(1, 1),
		"NaN bucket":              WithWaitBuckets(math.NaN()),
		"+Inf bucket":             WithHoldBuckets(1, math.Inf(1)),
		"bad namespace":           WithNamespace("zk-recipes"),
		"const label clashes":     WithConstLabels(prometheus.Labels{"state": "x"}),
		"bad const label name":    WithConstLabels(prometheus.Labels{"a-b": "x"}),
		"const label op":          WithConstLabels(prometheus.Labels{"op": "x"}),
		"no request buckets":      WithRequestBuckets(),
		"max paths 0":             WithMaxPaths(0),
		"max paths, no path":      WithMaxPaths(3),
	} {
		m, err := New(opt)
		if !errors.Is(err, ErrInvalidOption) || m != nil {
			t.Errorf("%s: New = %v, %v; want ErrInvalidOption", name, m, err)
		}
	}
}

// TestOptions: namespace, const labels, buckets and the path label show in
// /metrics.
func TestOptions(t *testing.T) {
	labels := prometheus.Labels{"client": "orders"}
	_, reg := newRegistered(t)
	m, err := New(WithNamespace("app"), WithConstLabels(labels), WithWaitBuckets(0.1, 1), WithHoldBuckets(10), WithStateBuckets(3), WithPathLabel())
	if err != nil {
		t.Fatal(err)
	}
	labels["client"] = "changed" // New copied them
	reg.MustRegister(m)          // beside a default one: no clash
	h := m.Hooks()
	h.State(client.StateHook{State: client.StateConnected})
	h.State(client.StateHook{State: client.StateSuspended, Previous: client.StateConnected, InPrevious: time.Second})
	acquire(t, h, client.RecipeWriteLock, "/rw", 500*time.Millisecond, nil)
	acquire(t, h, client.RecipeWriteLock, "/other", 50*time.Millisecond, nil)
	h.Released(client.Release{Recipe: client.RecipeWriteLock, Path: "/rw", Held: 11 * time.Second, Lost: true})
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_CREATED"})
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_CREATED"})
	text := scrape(t, reg)
	wantLines(t, text,
		`app_acquire_wait_seconds_bucket{client="orders",outcome="acquired",path="/rw",recipe="rwlock-write",le="0.1"} 0`,
		`app_acquire_wait_seconds_bucket{client="orders",outcome="acquired",path="/rw",recipe="rwlock-write",le="1"} 1`,
		`app_acquire_wait_seconds_bucket{client="orders",outcome="acquired",path="/other",recipe="rwlock-write",le="0.1"} 1`,
		`app_hold_seconds_bucket{client="orders",ended="lost",path="/rw",recipe="rwlock-write",le="10"} 0`,
		`app_hold_seconds_count{client="orders",ended="lost",path="/rw",recipe="rwlock-write"} 1`,
		`app_holdings_lost_total{client="orders",path="/rw",recipe="rwlock-write"} 1`,
		`app_cache_events_total{client="orders",path="/c",type="NODE_CREATED"} 2`,
		`app_session_state_duration_seconds_bucket{client="orders",state="Connected",le="3"} 1`,
		`app_session_state{client="orders",state="Suspended"} 1`,
		`zkrecipes_session_state{state="Connected"} 0`,
	)
	if strings.Contains(text, `client="changed"`) {
		t.Error("New kept the caller's map")
	}
}

// TestUnknownNames: a state, recipe or cache event type New does not know
// of still gets its series.
func TestUnknownNames(t *testing.T) {
	m, reg := newRegistered(t)
	h := m.Hooks()
	h.State(client.StateHook{State: client.State(9), Previous: client.StateConnected, InPrevious: time.Millisecond})
	acquire(t, h, "barrier", "/b", time.Millisecond, nil)
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_MOVED"})
	h.CacheEvent(client.CacheEventHook{Root: "/c", Type: "NODE_MOVED"})
	wantLines(t, scrape(t, reg),
		`zkrecipes_session_state{state="State(9)"} 1`,
		`zkrecipes_session_state{state="Connected"} 0`,
		`zkrecipes_session_state_changes_total{state="State(9)"} 1`,
		`zkrecipes_acquire_wait_seconds_count{outcome="acquired",recipe="barrier"} 1`,
		`zkrecipes_cache_events_total{type="NODE_MOVED"} 2`,
	)
}
