package zkotel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// acquire reports a wait of the given length and outcome the way a recipe
// does. A context error stands for the caller's context ending: the
// outcome is then Cancelled, as the client's own reporting would report it.
func acquire(h *client.Hooks, recipe, path string, wait time.Duration, err error) {
	_, done := h.Acquire(context.Background(), client.Acquisition{Recipe: recipe, Path: path})
	done(client.AcquireOutcome{Wait: wait, Err: err, Cancelled: isContextErr(err)})
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestScriptedHooks drives every hook with a scripted run and reads the
// metrics back through a ManualReader: counters, gauges, and the
// histograms' bounds, buckets, counts and sums.
func TestScriptedHooks(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	if r.t.Hooks() != h {
		t.Error("Hooks returned different hooks")
	}
	ms := r.collect(t)
	for _, s := range []string{"Connected", "Suspended", "Reconnected", "Lost"} {
		wantSum(t, ms, "zkrecipes.session.state", 0, AttrState.String(s))
	}
	wantSum(t, ms, "zkrecipes.guaranteed_deletes.pending", 0)

	for _, s := range []client.StateHook{
		{State: client.StateConnected, SessionID: 1},
		{State: client.StateSuspended, Previous: client.StateConnected, InPrevious: 2 * time.Second, SessionID: 1},
		{State: client.StateReconnected, Previous: client.StateSuspended, InPrevious: 300 * time.Millisecond, SessionID: 1},
		{State: client.StateSuspended, Previous: client.StateReconnected, InPrevious: 2 * time.Hour, SessionID: 1},
		{State: client.StateLost, Previous: client.StateSuspended, InPrevious: 4 * time.Second, SessionID: 1},
	} {
		h.State(s)
	}
	wantSum(t, r.collect(t), "zkrecipes.session.state", 1, AttrState.String("Lost"))
	h.State(client.StateHook{State: client.StateReconnected, Previous: client.StateLost, InPrevious: 50 * time.Millisecond, SessionID: 2})
	for i := 1; i <= 3; i++ {
		h.Retry(client.RetryHook{Attempt: i, Err: errors.New("connection loss")})
	}
	for _, n := range []int{1, 2, 3} {
		h.DeletesPending(n)
	}
	wantSum(t, r.collect(t), "zkrecipes.guaranteed_deletes.pending", 3)
	h.DeletesPending(2)

	acquire(h, client.RecipeMutex, "/locks/a", 700*time.Microsecond, nil)
	acquire(h, client.RecipeMutex, "/locks/b", 20*time.Millisecond, nil)
	acquire(h, client.RecipeMutex, "/locks/a", 3*time.Second, context.Canceled)
	acquire(h, client.RecipeMutex, "/locks/a", 5*time.Millisecond, errors.New("zk: not authenticated"))
	acquire(h, client.RecipeSemaphore, "/leases", 2*time.Minute, nil)
	acquire(h, client.RecipeLatch, "/leader", 10*time.Second, fmt.Errorf("wait: %w", context.DeadlineExceeded))
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/a", Held: 40 * time.Millisecond})
	h.Released(client.Release{Recipe: client.RecipeMutex, Path: "/locks/b", Held: 2 * time.Second, Lost: true})
	h.Released(client.Release{Recipe: client.RecipeLatch, Path: "/leader", Held: 3 * time.Hour, Lost: true})
	h.Released(client.Release{Recipe: client.RecipeSemaphore, Path: "/leases", Held: 48 * time.Hour})
	for _, typ := range []string{"NODE_CREATED", "NODE_CREATED", "NODE_CREATED", "INITIALIZED", "NODE_CHANGED", "NODE_DELETED"} {
		h.CacheEvent(client.CacheEventHook{Root: "/services", Type: typ})
	}

	ms = r.collect(t)
	units := map[string]string{
		"zkrecipes.session.state.changes": "{change}", "zkrecipes.session.state.duration": "s", "zkrecipes.session.state": "1",
		"zkrecipes.retries": "{retry}", "zkrecipes.guaranteed_deletes.pending": "{delete}",
		"zkrecipes.acquire.duration": "s", "zkrecipes.hold.duration": "s", "zkrecipes.holdings.lost": "{holding}",
		"zkrecipes.cache.events": "{event}",
		"zkrecipes.waiters":      "{wait}", "zkrecipes.holders": "{holding}", "zkrecipes.leaders": "{leadership}",
		"zkrecipes.holding.oldest.age": "s", "zkrecipes.wait.oldest.age": "s",
	}
	for name, unit := range units {
		if m, ok := ms[name]; !ok || m.Unit != unit || m.Description == "" {
			t.Errorf("metric %s: present %v, unit %q (want %q), description %q", name, ok, m.Unit, unit, m.Description)
		}
	}
	if len(ms) != len(units) {
		t.Errorf("%d metrics, want %d", len(ms), len(units))
	}
	for s, n := range map[string]int64{"Connected": 1, "Suspended": 2, "Reconnected": 2, "Lost": 1} {
		wantSum(t, ms, "zkrecipes.session.state.changes", n, AttrState.String(s))
	}
	for s, v := range map[string]int64{"Connected": 0, "Suspended": 0, "Reconnected": 1, "Lost": 0} {
		wantSum(t, ms, "zkrecipes.session.state", v, AttrState.String(s))
	}
	wantSum(t, ms, "zkrecipes.retries", 3)
	wantSum(t, ms, "zkrecipes.guaranteed_deletes.pending", 2)
	if d := ms["zkrecipes.guaranteed_deletes.pending"].Data.(metricdata.Sum[int64]); d.IsMonotonic {
		t.Error("pending deletes is monotonic")
	}

	// The state histograms: the time spent in the state left.
	p := hist(t, ms, "zkrecipes.session.state.duration", AttrState.String("Suspended"))
	if !slices.Equal(p.Bounds, DefaultStateBuckets) {
		t.Errorf("state bounds %v, want %v", p.Bounds, DefaultStateBuckets)
	}
	if p.Count != 2 || !near(p.Sum, 4.3) || bucket(t, p, 0.5) != 1 || bucket(t, p, 5) != 1 {
		t.Errorf("time Suspended: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.session.state.duration", AttrState.String("Reconnected")); p.Count != 1 || bucket(t, p, 6*3600) != 1 {
		t.Errorf("time Reconnected: %+v", p)
	}

	// Waits, by recipe and outcome; OTel buckets count (previous bound, bound].
	acq := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("mutex"), AttrOutcome.String(OutcomeAcquired))
	if !slices.Equal(acq.Bounds, DefaultWaitBuckets) {
		t.Errorf("wait bounds %v, want %v", acq.Bounds, DefaultWaitBuckets)
	}
	if acq.Count != 2 || !near(acq.Sum, 0.0207) || bucket(t, acq, 0.001) != 1 || bucket(t, acq, 0.025) != 1 {
		t.Errorf("mutex acquired: %+v", acq)
	}
	if p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("mutex"), AttrOutcome.String(OutcomeCancelled)); p.Count != 1 || bucket(t, p, 5) != 1 {
		t.Errorf("mutex cancelled: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("mutex"), AttrOutcome.String(OutcomeFailed)); p.Count != 1 || bucket(t, p, 0.005) != 1 {
		t.Errorf("mutex failed: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("semaphore"), AttrOutcome.String(OutcomeAcquired)); p.Count != 1 || p.BucketCounts[len(p.BucketCounts)-1] != 1 {
		t.Errorf("semaphore acquired after 2 minutes, not in the overflow bucket: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.acquire.duration", AttrRecipe.String("latch"), AttrOutcome.String(OutcomeCancelled)); p.Count != 1 {
		t.Errorf("latch cancelled: %+v", p)
	}

	// Holds, by recipe and how they ended; the lost ones counted.
	if p := hist(t, ms, "zkrecipes.hold.duration", AttrRecipe.String("mutex"), AttrEnded.String(EndedReleased)); p.Count != 1 || bucket(t, p, 0.1) != 1 || !slices.Equal(p.Bounds, DefaultHoldBuckets) {
		t.Errorf("mutex released: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.hold.duration", AttrRecipe.String("mutex"), AttrEnded.String(EndedLost)); p.Count != 1 || bucket(t, p, 5) != 1 {
		t.Errorf("mutex lost: %+v", p)
	}
	if p := hist(t, ms, "zkrecipes.hold.duration", AttrRecipe.String("latch"), AttrEnded.String(EndedLost)); p.Count != 1 || bucket(t, p, 4*3600) != 1 || !near(p.Sum, 10800) {
		t.Errorf("latch lost: %+v", p)
	}
	wantSum(t, ms, "zkrecipes.holdings.lost", 1, AttrRecipe.String("mutex"))
	wantSum(t, ms, "zkrecipes.holdings.lost", 1, AttrRecipe.String("latch"))
	if _, ok := sum(t, ms["zkrecipes.holdings.lost"], AttrRecipe.String("semaphore")); ok {
		t.Error("a lost semaphore lease counted, none was lost")
	}
	for typ, n := range map[string]int64{"NODE_CREATED": 3, "NODE_CHANGED": 1, "NODE_DELETED": 1, "INITIALIZED": 1} {
		wantSum(t, ms, "zkrecipes.cache.events", n, AttrCacheType.String(typ))
	}
	// No path without WithPathAttribute.
	for _, m := range ms {
		if d, ok := m.Data.(metricdata.Histogram[float64]); ok {
			for _, p := range d.DataPoints {
				if _, ok := p.Attributes.Value(AttrPath); ok {
					t.Errorf("%s: a path attribute without WithPathAttribute", m.Name)
				}
			}
		}
	}
}

// TestOutcomes: the outcome attribute of each way a wait ends
// (itest.WaitEnds), reported as the recipes report it (the client's own
// reporting): a try that finds the holding taken is busy, not failed;
// cancelled means the caller's context ended, whatever error that made; a
// context error the caller did not cause is a failure.
func TestOutcomes(t *testing.T) {
	r := newRig(t)
	h := r.t.Hooks()
	want := make(map[string]uint64)
	for _, c := range itest.WaitEnds() {
		before := waitCount(t, r, client.RecipeMutex, c.Outcome)
		_, done := itest.StartAcquire(h, c.Ctx, client.RecipeMutex, "/a")
		done(c.Err)
		if n := waitCount(t, r, client.RecipeMutex, c.Outcome) - before; n != 1 {
			t.Errorf("%v (context ended: %v): %s waits grew by %d, want 1", c.Err, c.Ctx.Err() != nil, c.Outcome, n)
		}
		want[c.Outcome]++
	}
	for _, outcome := range []string{OutcomeAcquired, OutcomeBusy, OutcomeCancelled, OutcomeFailed} {
		if got := waitCount(t, r, client.RecipeMutex, outcome); got != want[outcome] {
			t.Errorf("%d waits %s, want %d", got, outcome, want[outcome])
		}
	}
}

// waitCount is the number of waits of recipe with outcome recorded so far.
func waitCount(t testing.TB, r *rig, recipe, outcome string) uint64 {
	t.Helper()
	m, ok := r.collect(t)["zkrecipes.acquire.duration"]
	if !ok {
		return 0
	}
	for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		if has(p.Attributes, AttrRecipe.String(recipe), AttrOutcome.String(outcome)) {
			return p.Count
		}
	}
	return 0
}
