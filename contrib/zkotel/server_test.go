package zkotel

import (
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestRealServer: a client on a real ZooKeeper server, through a fault
// link, with the hooks: its states over a cut (Connected, Suspended,
// Reconnected, with plausible times in Connected and Suspended), then a
// cache's events, then the outcome of each kind of wait, all read back
// through the ManualReader.
func TestRealServer(t *testing.T) {
	itest.NoLeaks(t)
	const timeout = 90 * time.Second
	cluster := zktest.ForTest(t)
	ctx := itest.Ctx(t, timeout)
	r := newRig(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, cluster, itest.Opts{Link: link, NS: itest.Namespace(t), Extra: []client.Option{client.WithHooks(r.t.Hooks())}})

	t.Run("states", func(t *testing.T) {
		states, stop := c.Subscribe()
		defer stop()
		ms := r.collect(t)
		wantSum(t, ms, "zkrecipes.session.state.changes", 1, AttrState.String("Connected"))
		wantSum(t, ms, "zkrecipes.session.state", 1, AttrState.String("Connected"))
		time.Sleep(50 * time.Millisecond) // some time Connected
		link.Cut()
		if ev := itest.Await(t, states, 10*time.Second, "Suspended"); ev.State != client.StateSuspended {
			t.Fatalf("after the cut: %v", ev.State)
		}
		ms = r.collect(t)
		wantSum(t, ms, "zkrecipes.session.state", 1, AttrState.String("Suspended"))
		wantSum(t, ms, "zkrecipes.session.state", 0, AttrState.String("Connected"))
		time.Sleep(100 * time.Millisecond) // some time Suspended, well within the session
		link.Restore()
		if ev := itest.Await(t, states, 10*time.Second, "Reconnected"); ev.State != client.StateReconnected {
			t.Fatalf("after the restore: %v", ev.State)
		}
		ms = r.collect(t)
		for s, n := range map[string]int64{"Connected": 1, "Suspended": 1, "Reconnected": 1} {
			wantSum(t, ms, "zkrecipes.session.state.changes", n, AttrState.String(s))
		}
		if _, ok := sum(t, ms["zkrecipes.session.state.changes"], AttrState.String("Lost")); ok {
			t.Error("a Lost state counted")
		}
		wantSum(t, ms, "zkrecipes.session.state", 1, AttrState.String("Reconnected"))
		wantSum(t, ms, "zkrecipes.session.state", 0, AttrState.String("Suspended"))
		for _, s := range []string{"Connected", "Suspended"} {
			p := hist(t, ms, "zkrecipes.session.state.duration", AttrState.String(s))
			t.Logf("time %s: %.3fs", s, p.Sum)
			if p.Count != 1 || p.Sum <= 0 || p.Sum >= timeout.Seconds() {
				t.Errorf("time %s: %d records, %vs: not plausible", s, p.Count, p.Sum)
			}
		}
	})

	t.Run("cache", func(t *testing.T) {
		itest.CacheEachEvent(t, ctx, c)
		ms := r.collect(t)
		for typ, n := range map[string]int64{"NODE_CREATED": 3, "INITIALIZED": 1, "NODE_CHANGED": 1, "NODE_DELETED": 1} {
			wantSum(t, ms, "zkrecipes.cache.events", n, AttrCacheType.String(typ))
		}
	})

	t.Run("outcomes", func(t *testing.T) {
		itest.AcquireEachOutcome(t, ctx, cluster, c, r.t.Hooks())
		for _, w := range []struct {
			recipe, outcome string
			n               uint64
		}{
			{"mutex", OutcomeAcquired, 1}, {"mutex", OutcomeBusy, 1}, {"mutex", OutcomeCancelled, 1}, {"mutex", OutcomeFailed, 1},
			{"semaphore", OutcomeAcquired, 1}, {"semaphore", OutcomeBusy, 1}, {"semaphore", OutcomeFailed, 0},
			{"semaphore-mutex", OutcomeAcquired, 1}, {"semaphore-mutex", OutcomeBusy, 1}, {"semaphore-mutex", OutcomeFailed, 0},
		} {
			if got := waitCount(t, r, w.recipe, w.outcome); got != w.n {
				t.Errorf("%s: %d waits %s, want %d", w.recipe, got, w.outcome, w.n)
			}
		}
	})
}
