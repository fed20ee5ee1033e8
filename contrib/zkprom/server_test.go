package zkprom

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// value is the value of the sample named series (name and labels, as
// printed) in text; it fails the test when there is none.
func value(t testing.TB, text, series string) float64 {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s:\n%s", series, text)
	return 0
}

// TestRealServer: a client on a real ZooKeeper server, through a fault
// link, with the hooks: its states over a cut (Connected, Suspended,
// Reconnected, with plausible times in Connected and Suspended), then a
// cache's events, then the outcome of each kind of wait, all read back by
// GET /metrics.
func TestRealServer(t *testing.T) {
	itest.NoLeaks(t)
	const timeout = 90 * time.Second
	cluster := zktest.ForTest(t)
	ctx := itest.Ctx(t, timeout)
	m, reg := newRegistered(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, cluster, itest.Opts{Link: link, NS: itest.Namespace(t), Extra: []client.Option{client.WithHooks(m.Hooks())}})

	t.Run("states", func(t *testing.T) {
		states, stop := c.Subscribe()
		defer stop()
		text := scrape(t, reg)
		wantLines(t, text,
			`zkrecipes_session_state_changes_total{state="Connected"} 1`,
			`zkrecipes_session_state{state="Connected"} 1`,
		)
		time.Sleep(50 * time.Millisecond) // some time Connected
		link.Cut()
		if ev := itest.Await(t, states, 10*time.Second, "Suspended"); ev.State != client.StateSuspended {
			t.Fatalf("after the cut: %v", ev.State)
		}
		wantLines(t, scrape(t, reg), `zkrecipes_session_state{state="Suspended"} 1`, `zkrecipes_session_state{state="Connected"} 0`)
		time.Sleep(100 * time.Millisecond) // some time Suspended, well within the session
		link.Restore()
		if ev := itest.Await(t, states, 10*time.Second, "Reconnected"); ev.State != client.StateReconnected {
			t.Fatalf("after the restore: %v", ev.State)
		}
		text = scrape(t, reg)
		wantLines(t, text,
			`zkrecipes_session_state_changes_total{state="Connected"} 1`,
			`zkrecipes_session_state_changes_total{state="Suspended"} 1`,
			`zkrecipes_session_state_changes_total{state="Reconnected"} 1`,
			`zkrecipes_session_state_changes_total{state="Lost"} 0`,
			`zkrecipes_session_state{state="Reconnected"} 1`,
			`zkrecipes_session_state{state="Suspended"} 0`,
			`zkrecipes_session_state_duration_seconds_count{state="Connected"} 1`,
			`zkrecipes_session_state_duration_seconds_count{state="Suspended"} 1`,
			`zkrecipes_session_state_duration_seconds_count{state="Reconnected"} 0`,
		)
		for _, s := range []string{"Connected", "Suspended"} {
			d := value(t, text, `zkrecipes_session_state_duration_seconds_sum{state="`+s+`"}`)
			t.Logf("time %s: %.3fs", s, d)
			if d <= 0 || d >= timeout.Seconds() {
				t.Errorf("time %s %vs: not plausible", s, d)
			}
		}
	})

	t.Run("cache", func(t *testing.T) {
		itest.CacheEachEvent(t, ctx, c)
		wantLines(t, scrape(t, reg),
			`zkrecipes_cache_events_total{type="NODE_CREATED"} 3`,
			`zkrecipes_cache_events_total{type="INITIALIZED"} 1`,
			`zkrecipes_cache_events_total{type="NODE_CHANGED"} 1`,
			`zkrecipes_cache_events_total{type="NODE_DELETED"} 1`,
		)
	})

	t.Run("outcomes", func(t *testing.T) {
		waits := func(outcome, recipe string, n int) string {
			return `zkrecipes_acquire_wait_seconds_count{outcome="` + outcome + `",recipe="` + recipe + `"} ` + strconv.Itoa(n)
		}
		itest.AcquireEachOutcome(t, ctx, cluster, c, m.Hooks())
		wantLines(t, scrape(t, reg),
			waits("acquired", "mutex", 1), waits("busy", "mutex", 1), waits("cancelled", "mutex", 1), waits("failed", "mutex", 1),
			waits("acquired", "semaphore", 1), waits("busy", "semaphore", 1), waits("failed", "semaphore", 0),
			waits("acquired", "semaphore-mutex", 1), waits("busy", "semaphore-mutex", 1), waits("failed", "semaphore-mutex", 0),
		)
	})
}
