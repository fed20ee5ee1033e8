package zkprom

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// gaugeOf reads one sample (name and labels as printed) by GET /metrics.
func gaugeOf(t testing.TB, reg *prometheus.Registry, series string) float64 {
	t.Helper()
	return value(t, scrape(t, reg), series)
}

// awaitGauge waits until the sample is want (the hooks run on the recipes'
// goroutines: a holding lost is reported once its monitor has seen it).
func awaitGauge(t testing.TB, reg *prometheus.Registry, series string, want float64) {
	t.Helper()
	var got float64
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got = gaugeOf(t, reg, series); got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v", series, got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGaugesRealServer: the gauges follow real recipes on a real server
// through every way a wait or a holding ends, and never drift: a wait
// cancelled, a TryLock that found the lock busy, a holding lost under a
// cut and released after the loss, an AcquireN of three leases, a latch's
// leadership and its waiting rival, an election.Run term; each gauge is
// back to 0 once its recipes are done. The oldest holding's age grows
// while it is held. The requests they sent are counted by op.
func TestGaugesRealServer(t *testing.T) {
	itest.NoLeaks(t)
	cluster := zktest.ForTest(t)
	ctx := itest.Ctx(t, 90*time.Second)
	m, reg := newRegistered(t)
	link := itest.NewLink(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, cluster, itest.Opts{Link: link, NS: ns, Extra: []client.Option{client.WithHooks(m.Hooks())}})
	newMutex := func() *mutex.Mutex {
		mu, err := mutex.New(c, "/lock")
		if err != nil {
			t.Fatal(err)
		}
		return mu
	}
	const (
		holders  = `zkrecipes_holders{recipe="mutex"}`
		waiters  = `zkrecipes_waiters{recipe="mutex"}`
		ageHold  = `zkrecipes_oldest_holding_age_seconds{recipe="mutex"}`
		ageWait  = `zkrecipes_oldest_wait_age_seconds{recipe="mutex"}`
		lostHold = `zkrecipes_hold_seconds_count{ended="lost",recipe="mutex"}`
	)

	t.Run("wait cancelled, try busy", func(t *testing.T) {
		holder, waiter, trier := newMutex(), newMutex(), newMutex()
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, holders, 1)
		wctx, cancel := context.WithCancel(ctx)
		waited := make(chan error, 1)
		go func() { waited <- waiter.Lock(wctx) }()
		awaitGauge(t, reg, waiters, 1)
		time.Sleep(200 * time.Millisecond)
		if age := gaugeOf(t, reg, ageWait); age < 0.2 {
			t.Errorf("the waiter waited 200 ms and more: oldest wait %vs", age)
		}
		if age := gaugeOf(t, reg, ageHold); age < 0.2 {
			t.Errorf("the holder held 200 ms and more: oldest holding %vs", age)
		}
		cancel()
		if err := <-waited; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled wait: %v", err)
		}
		awaitGauge(t, reg, waiters, 0)
		if err := trier.TryLock(ctx); !errors.Is(err, zkrecipes.ErrBusy) {
			t.Fatalf("TryLock of a held lock: %v", err)
		}
		wantLines(t, scrape(t, reg), waiters+" 0", holders+" 1", ageWait+" 0")
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, holders, 0)
		wantLines(t, scrape(t, reg), ageHold+" 0")
	})

	t.Run("lost, then released", func(t *testing.T) {
		mu := newMutex()
		if err := mu.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, holders, 1)
		link.Cut()
		if !itest.WaitClosed(mu.Lost(), 10*time.Second) {
			t.Fatal("the holding was not lost under the cut")
		}
		awaitGauge(t, reg, holders, 0)
		link.Restore()
		itest.Eventually(t, 10*time.Second, "the connection back", func() bool { return c.State() == client.StateReconnected })
		if err := mu.Unlock(ctx); !errors.Is(err, zkrecipes.ErrLost) {
			t.Fatalf("Unlock after the loss: %v, want ErrLost", err)
		}
		// A lock taken again counts once: the released lost holding is
		// no holding now, and the loss was reported once.
		if err := mu.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		wantLines(t, scrape(t, reg), holders+" 1", lostHold+" 1", `zkrecipes_holdings_lost_total{recipe="mutex"} 1`)
		if err := mu.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, holders, 0)
		wantLines(t, scrape(t, reg), lostHold+" 1", waiters+" 0")
	})

	t.Run("leases", func(t *testing.T) {
		sem, err := semaphore.New(c, "/sem", 3)
		if err != nil {
			t.Fatal(err)
		}
		leases, err := sem.AcquireN(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, `zkrecipes_holders{recipe="semaphore"}`, 3)
		for i, l := range leases {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
			awaitGauge(t, reg, `zkrecipes_holders{recipe="semaphore"}`, float64(2-i))
		}
		wantLines(t, scrape(t, reg), `zkrecipes_waiters{recipe="semaphore"} 0`)
	})

	t.Run("leadership", func(t *testing.T) {
		first, err := election.NewLatch(c, "/latch")
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := first.Await(ctx); err != nil {
			t.Fatal(err)
		}
		second, err := election.NewLatch(c, "/latch")
		if err != nil {
			t.Fatal(err)
		}
		if err := second.Start(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, `zkrecipes_leaders{recipe="latch"}`, 1)
		awaitGauge(t, reg, `zkrecipes_waiters{recipe="latch"}`, 1)
		if err := first.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := second.Await(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, `zkrecipes_waiters{recipe="latch"}`, 0)
		awaitGauge(t, reg, `zkrecipes_leaders{recipe="latch"}`, 1)
		if err := second.Close(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, `zkrecipes_leaders{recipe="latch"}`, 0)

		err = election.Run(ctx, c, "/run", func(ctx context.Context, _ *election.Term) error {
			wantLines(t, scrape(t, reg), `zkrecipes_leaders{recipe="leader"} 1`, `zkrecipes_waiters{recipe="leader"} 0`)
			return nil
		}, election.WithRunOnce())
		if err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, reg, `zkrecipes_leaders{recipe="leader"}`, 0)
		text := scrape(t, reg)
		for _, no := range []string{`zkrecipes_holders{recipe="latch"}`, `zkrecipes_leaders{recipe="mutex"}`} {
			if hasSeries(text, no) {
				t.Errorf("/metrics has %s: leaderships and locks are apart", no)
			}
		}
	})

	t.Run("requests", func(t *testing.T) {
		text := scrape(t, reg)
		for _, op := range []string{client.OpCreate, client.OpGetChildren, client.OpDelete} {
			if n := value(t, text, `zkrecipes_request_duration_seconds_count{op="`+op+`"}`); n < 1 {
				t.Errorf("%s requests: %v", op, n)
			}
		}
	})
}

// hasSeries reports whether text has a sample of series.
func hasSeries(text, series string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, series+" ") {
			return true
		}
	}
	return false
}
