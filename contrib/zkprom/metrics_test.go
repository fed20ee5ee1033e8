package zkprom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// newRegistered returns Metrics registered on a fresh registry.
func newRegistered(t testing.TB, opts ...Option) (*Metrics, *prometheus.Registry) {
	t.Helper()
	m, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(m); err != nil {
		t.Fatal(err)
	}
	return m, reg
}

// scrape GETs /metrics from an HTTP server serving reg, as Prometheus does,
// and returns the text.
func scrape(t testing.TB, reg *prometheus.Registry) string {
	t.Helper()
	text, err := tryScrape(reg)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// tryScrape is scrape for any goroutine: it returns the failure.
func tryScrape(reg *prometheus.Registry) (string, error) {
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		return "", fmt.Errorf("GET /metrics: %s, Content-Type %q:\n%s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	return string(body), nil
}

// wantLines fails unless every line of want is a line of text.
func wantLines(t testing.TB, text string, want ...string) {
	t.Helper()
	have := make(map[string]bool)
	for _, l := range strings.Split(text, "\n") {
		have[l] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("/metrics lacks the line\n\t%s", w)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", text)
	}
}

// acquire reports a wait of the given length and outcome the way a recipe
// does: Acquire, then the outcome function once. A context error stands
// for the caller's context ending: the outcome is then Cancelled, as
// the client's own reporting would report it.
func acquire(t testing.TB, h *client.Hooks, recipe, path string, wait time.Duration, err error) {
	t.Helper()
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")
	got, done := h.Acquire(ctx, client.Acquisition{Recipe: recipe, Path: path})
	if got != ctx {
		t.Error("Acquire changed the caller's context")
	}
	done(client.AcquireOutcome{Wait: wait, Err: err, Cancelled: isContextErr(err)})
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

type ctxKey struct{}

// TestScriptedHooks drives every hook with a scripted run and reads the
// result back by a real HTTP GET of /metrics: the counters, the state
// gauge, and the histograms' buckets, counts and sums.
func TestScriptedHooks(t *testing.T) {
	m, reg := newRegistered(t)
	h := m.Hooks()
	if m.Hooks() != h {
		t.Error("Hooks returned different hooks")
	}

	// A session: Connected, a short cut, then a long one that loses it.
	for _, s := range []client.StateHook{
		{State: client.StateConnected, SessionID: 1},
		{State: client.StateSuspended, Previous: client.StateConnected, InPrevious: 2 * time.Second, SessionID: 1},
		{State: client.StateReconnected, Previous: client.StateSuspended, InPrevious: 300 * time.Millisecond, SessionID: 1},
		{State: client.StateSuspended, Previous: client.StateReconnected, InPrevious: 2 * time.Hour, SessionID: 1},
		{State: client.StateLost, Previous: client.StateSuspended, InPrevious: 4 * time.Second, SessionID: 1},
	} {
		h.State(s)
	}
	if got := testutil.ToFloat64(m.state.WithLabelValues("Lost")); got != 1 {
		t.Errorf("session_state{Lost} = %v while Lost", got)
	}
	h.State(client.StateHook{State: client.StateReconnected, Previous: client.StateLost, InPrevious: 50 * time.Millisecond, SessionID: 2})

	for i := 1; i <= 3; i++ {
		h.Retry(client.RetryHook{Attempt: i, Err: errors.New("connection loss"), Sleep: time.Duration(i) * time.Millisecond})
	}
	for _, n := range []int{1, 2, 3} {
		h.DeletesPending(n)
	}
	if got := testutil.ToFloat64(m.pending); got != 3 {
		t.Errorf("guaranteed_deletes_pending = %v with 3 pending", got)
	}
	h.DeletesPending(2)

	acquire(t, h, client.RecipeMutex, "/locks/a", 700*time.Microsecond, nil)
	acquire(t, h, client.RecipeMutex, "/locks/b", 20*time.Millisecond, nil)
	acquire(t, h, client.RecipeMutex, "/locks/a", 3*time.Second, context.Canceled)
	acquire(t, h, client.RecipeMutex, "/locks/a", 5*time.Millisecond, errors.New("zk: not authenticated"))
	acquire(t, h, client.RecipeSemaphore, "/leases", 2*time.Minute, nil)
	acquire(t, h, client.RecipeLatch, "/leader", 10*time.Second, fmt.Errorf("wait: %w", context.DeadlineExceeded))

	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/a", Held: 40 * time.Millisecond})
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/b", Held: 2 * time.Second, Lost: true})
	h.Released(client.Release{Recipe: client.RecipeLatch, Path: "/leader", Held: 3 * time.Hour, Lost: true})
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/leases", Held: 2 * 24 * time.Hour})

	for _, typ := range []string{"NODE_CREATED", "NODE_CREATED", "NODE_CREATED", "INITIALIZED", "NODE_CHANGED", "NODE_DELETED"} {
		h.CacheEvent(client.CacheEventHook{Root: "/services", Type: typ})
	}

	text := scrape(t, reg)
	wantLines(t, text,
		"# TYPE zkrecipes_session_state_changes_total counter",
		`zkrecipes_session_state_changes_total{state="Connected"} 1`,
		`zkrecipes_session_state_changes_total{state="Suspended"} 2`,
		`zkrecipes_session_state_changes_total{state="Reconnected"} 2`,
		`zkrecipes_session_state_changes_total{state="Lost"} 1`,

		"# TYPE zkrecipes_session_state_duration_seconds histogram",
		`zkrecipes_session_state_duration_seconds_bucket{state="Connected",le="1"} 0`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Connected",le="2.5"} 1`,
		`zkrecipes_session_state_duration_seconds_count{state="Connected"} 1`,
		`zkrecipes_session_state_duration_seconds_sum{state="Connected"} 2`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Suspended",le="0.5"} 1`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Suspended",le="5"} 2`,
		`zkrecipes_session_state_duration_seconds_sum{state="Suspended"} 4.3`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Reconnected",le="3600"} 0`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Reconnected",le="21600"} 1`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Lost",le="0.01"} 0`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Lost",le="0.1"} 1`,
		`zkrecipes_session_state_duration_seconds_bucket{state="Lost",le="+Inf"} 1`,

		"# TYPE zkrecipes_session_state gauge",
		`zkrecipes_session_state{state="Connected"} 0`,
		`zkrecipes_session_state{state="Suspended"} 0`,
		`zkrecipes_session_state{state="Reconnected"} 1`,
		`zkrecipes_session_state{state="Lost"} 0`,

		"# TYPE zkrecipes_retries_total counter",
		"zkrecipes_retries_total 3",
		"# TYPE zkrecipes_guaranteed_deletes_pending gauge",
		"zkrecipes_guaranteed_deletes_pending 2",

		"# TYPE zkrecipes_acquire_wait_seconds histogram",
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="0.0005"} 0`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="0.001"} 1`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="0.01"} 1`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="0.025"} 2`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="mutex",le="+Inf"} 2`,
		`zkrecipes_acquire_wait_seconds_count{outcome="acquired",recipe="mutex"} 2`,
		`zkrecipes_acquire_wait_seconds_sum{outcome="acquired",recipe="mutex"} 0.0207`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="cancelled",recipe="mutex",le="2.5"} 0`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="cancelled",recipe="mutex",le="5"} 1`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="failed",recipe="mutex",le="0.0025"} 0`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="failed",recipe="mutex",le="0.005"} 1`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="semaphore",le="60"} 0`,
		`zkrecipes_acquire_wait_seconds_bucket{outcome="acquired",recipe="semaphore",le="+Inf"} 1`,
		`zkrecipes_acquire_wait_seconds_count{outcome="cancelled",recipe="latch"} 1`,
		`zkrecipes_acquire_wait_seconds_count{outcome="failed",recipe="semaphore"} 0`,

		"# TYPE zkrecipes_hold_seconds histogram",
		`zkrecipes_hold_seconds_bucket{ended="released",recipe="mutex",le="0.01"} 0`,
		`zkrecipes_hold_seconds_bucket{ended="released",recipe="mutex",le="0.1"} 1`,
		`zkrecipes_hold_seconds_bucket{ended="lost",recipe="mutex",le="1"} 0`,
		`zkrecipes_hold_seconds_bucket{ended="lost",recipe="mutex",le="5"} 1`,
		`zkrecipes_hold_seconds_bucket{ended="lost",recipe="latch",le="3600"} 0`,
		`zkrecipes_hold_seconds_bucket{ended="lost",recipe="latch",le="14400"} 1`,
		`zkrecipes_hold_seconds_sum{ended="lost",recipe="latch"} 10800`,
		`zkrecipes_hold_seconds_bucket{ended="released",recipe="semaphore",le="86400"} 0`,
		`zkrecipes_hold_seconds_bucket{ended="released",recipe="semaphore",le="+Inf"} 1`,

		"# TYPE zkrecipes_holdings_lost_total counter",
		`zkrecipes_holdings_lost_total{recipe="mutex"} 1`,
		`zkrecipes_holdings_lost_total{recipe="latch"} 1`,
		`zkrecipes_holdings_lost_total{recipe="semaphore"} 0`,

		"# TYPE zkrecipes_cache_events_total counter",
		`zkrecipes_cache_events_total{type="NODE_CREATED"} 3`,
		`zkrecipes_cache_events_total{type="NODE_CHANGED"} 1`,
		`zkrecipes_cache_events_total{type="NODE_DELETED"} 1`,
		`zkrecipes_cache_events_total{type="INITIALIZED"} 1`,
	)
	if strings.Contains(text, "path=") || strings.Contains(text, "/locks") {
		t.Error("a path is a label without WithPathLabel")
	}
}

// TestOutcomes: the outcome label of each way a wait ends
// (itest.WaitEnds), reported as the recipes report it (the client's own
// reporting): a try that finds the holding taken is busy, not failed;
// cancelled means the caller's context ended, whatever error that made; a
// context error the caller did not cause is a failure.
func TestOutcomes(t *testing.T) {
	m, reg := newRegistered(t)
	h := m.Hooks()
	count := func(outcome string) string {
		return `zkrecipes_acquire_wait_seconds_count{outcome="` + outcome + `",recipe="mutex"}`
	}
	want := make(map[string]int)
	for _, c := range itest.WaitEnds() {
		series := count(c.Outcome)
		before := 0.0
		if text := scrape(t, reg); strings.Contains(text, series) { // none before the recipe's first wait
			before = value(t, text, series)
		}
		_, done := itest.StartAcquire(h, c.Ctx, client.RecipeMutex, "/a")
		done(c.Err)
		if n := value(t, scrape(t, reg), series) - before; n != 1 {
			t.Errorf("%v (context ended: %v): %s grew by %v, want 1", c.Err, c.Ctx.Err() != nil, series, n)
		}
		want[c.Outcome]++
	}
	var lines []string
	for _, outcome := range []string{OutcomeAcquired, OutcomeBusy, OutcomeCancelled, OutcomeFailed} {
		lines = append(lines, count(outcome)+" "+strconv.Itoa(want[outcome]))
	}
	wantLines(t, scrape(t, reg), lines...)
}
