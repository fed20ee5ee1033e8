package zkprom

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestGaugesScripted: the gauges count waits under way and holdings by
// their pairs of hooks, a lease of an AcquireN each, leaderships apart
// from locks; the oldest of each shows its age; an end with no begin (a
// Released the Metrics never saw begin) changes nothing.
func TestGaugesScripted(t *testing.T) {
	m, reg := newRegistered(t)
	h := m.Hooks()
	ctx := context.Background()

	_, done := h.Acquire(ctx, client.Acquisition{Recipe: client.RecipeSemaphore, Path: "/s"})
	_, done2 := h.Acquire(ctx, client.Acquisition{Recipe: client.RecipeSemaphore, Path: "/s"})
	old := time.Now().Add(-time.Hour)
	leases := []time.Time{old, time.Now(), time.Now()}
	for _, since := range leases {
		h.Held(client.Holding{Recipe: client.RecipeSemaphore, Path: "/s", Since: since})
	}
	done(client.AcquireOutcome{Wait: time.Millisecond})
	h.Held(client.Holding{Recipe: client.RecipeLatch, Path: "/l", Since: time.Now().Add(-3 * time.Hour)})
	text := scrape(t, reg)
	wantLines(t, text,
		"# TYPE zkrecipes_holders gauge",
		`zkrecipes_holders{recipe="semaphore"} 3`,
		`zkrecipes_waiters{recipe="semaphore"} 1`,
		`zkrecipes_leaders{recipe="latch"} 1`,
		`zkrecipes_waiters{recipe="latch"} 0`,
	)
	if age := value(t, text, `zkrecipes_oldest_holding_age_seconds{recipe="semaphore"}`); age < 3600 || age > 3700 {
		t.Errorf("oldest lease's age %vs, want an hour", age)
	}
	if age := value(t, text, `zkrecipes_oldest_holding_age_seconds{recipe="latch"}`); age < 3*3600 {
		t.Errorf("the leadership's age %vs, want 3 hours", age)
	}
	if age := value(t, text, `zkrecipes_oldest_wait_age_seconds{recipe="semaphore"}`); age <= 0 || age > 60 {
		t.Errorf("the wait's age %vs", age)
	}
	if hasSeries(text, `zkrecipes_holders{recipe="latch"}`) || hasSeries(text, `zkrecipes_leaders{recipe="semaphore"}`) {
		t.Error("a leadership counted as a lock, or a lease as a leadership")
	}

	// The oldest lease ends: the next oldest is the age. An end never
	// begun, or ended twice, changes nothing.
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: old, Held: time.Hour})
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: old, Held: time.Hour})
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: time.Now(), Held: time.Second})
	text = scrape(t, reg)
	wantLines(t, text, `zkrecipes_holders{recipe="semaphore"} 2`)
	if age := value(t, text, `zkrecipes_oldest_holding_age_seconds{recipe="semaphore"}`); age > 60 {
		t.Errorf("oldest lease's age %vs after the hour-old one ended", age)
	}
	for _, since := range leases[1:] {
		h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/s", Since: since, Lost: true})
	}
	done2(client.AcquireOutcome{Wait: time.Millisecond, Err: context.Canceled, Cancelled: true})
	done2(client.AcquireOutcome{Wait: time.Millisecond, Err: context.Canceled, Cancelled: true}) // twice: no harm
	wantLines(t, scrape(t, reg),
		`zkrecipes_holders{recipe="semaphore"} 0`,
		`zkrecipes_waiters{recipe="semaphore"} 0`,
		`zkrecipes_oldest_holding_age_seconds{recipe="semaphore"} 0`,
		`zkrecipes_oldest_wait_age_seconds{recipe="semaphore"} 0`,
		`zkrecipes_holdings_lost_total{recipe="semaphore"} 2`,
	)
}

// TestPathCap: with WithPathLabel, the first WithMaxPaths paths are
// labelled as themselves and every later one "other", in every metric
// with a path; the gauges of "other" still count exactly.
func TestPathCap(t *testing.T) {
	m, reg := newRegistered(t, WithPathLabel(), WithMaxPaths(2))
	h := m.Hooks()
	for i := range 5 {
		p := fmt.Sprintf("/locks/%d", i)
		h.Held(client.Holding{Recipe: client.RecipeMutex, Path: p, Since: time.Unix(int64(i), 0)})
		acquire(t, h, client.RecipeMutex, p, time.Millisecond, nil)
		h.CacheEvent(client.CacheEventHook{Root: p, Type: "NODE_CREATED"})
	}
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/4", Since: time.Unix(4, 0)})
	text := scrape(t, reg)
	wantLines(t, text,
		`zkrecipes_holders{path="/locks/0",recipe="mutex"} 1`,
		`zkrecipes_holders{path="/locks/1",recipe="mutex"} 1`,
		`zkrecipes_holders{path="other",recipe="mutex"} 2`,
		`zkrecipes_acquire_wait_seconds_count{outcome="acquired",path="other",recipe="mutex"} 3`,
		`zkrecipes_cache_events_total{path="other",type="NODE_CREATED"} 3`,
	)
	for _, p := range []string{"/locks/2", "/locks/3", "/locks/4"} {
		if strings.Contains(text, `"`+p+`"`) {
			t.Errorf("%s past the cap has a series of its own", p)
		}
	}
}

// TestRequests: each request is observed by op; a failed one is counted by
// op and error class too; a series appears with its op's first request.
func TestRequests(t *testing.T) {
	m, reg := newRegistered(t)
	h := m.Hooks()
	for _, r := range []client.RequestHook{
		{Op: client.OpCreate, Duration: 300 * time.Microsecond},
		{Op: client.OpCreate, Duration: 2 * time.Millisecond, Err: zk.ErrNodeExists},
		{Op: client.OpGetData, Duration: 80 * time.Microsecond},
		{Op: client.OpExists, Duration: time.Millisecond, Err: zk.ErrNoNode},
		{Op: client.OpMulti, Duration: 20 * time.Second, Err: zk.ErrConnectionClosed},
		{Op: "someNewOp", Duration: time.Millisecond, Err: fmt.Errorf("x: %w", zk.ErrBadArguments)},
	} {
		h.Request(r)
	}
	text := scrape(t, reg)
	wantLines(t, text,
		"# TYPE zkrecipes_request_duration_seconds histogram",
		`zkrecipes_request_duration_seconds_bucket{op="create",le="0.00025"} 0`,
		`zkrecipes_request_duration_seconds_bucket{op="create",le="0.0005"} 1`,
		`zkrecipes_request_duration_seconds_bucket{op="create",le="0.0025"} 2`,
		`zkrecipes_request_duration_seconds_count{op="create"} 2`,
		`zkrecipes_request_duration_seconds_bucket{op="getData",le="0.0001"} 1`,
		`zkrecipes_request_duration_seconds_bucket{op="multi",le="10"} 0`,
		`zkrecipes_request_duration_seconds_bucket{op="multi",le="+Inf"} 1`,
		`zkrecipes_request_duration_seconds_count{op="other"} 1`,
		"# TYPE zkrecipes_request_errors_total counter",
		`zkrecipes_request_errors_total{error="node_exists",op="create"} 1`,
		`zkrecipes_request_errors_total{error="no_node",op="exists"} 1`,
		`zkrecipes_request_errors_total{error="connection_loss",op="multi"} 1`,
		`zkrecipes_request_errors_total{error="error",op="other"} 1`,
	)
	if strings.Contains(text, `op="delete"`) || strings.Contains(text, `error="no_node",op="create"`) ||
		strings.Contains(text, `zkrecipes_request_errors_total{error="ok"`) {
		t.Error("a series no request made")
	}
}
