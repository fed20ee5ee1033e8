package zkotel

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// gaugeOf reads one point (see num) now; 0 when there is none.
func gaugeOf(t testing.TB, r *rig, name string, kv ...attribute.KeyValue) float64 {
	t.Helper()
	v, _ := num(t, r.collect(t), name, kv...)
	return v
}

// awaitGauge waits until the point is want (the hooks run on the recipes'
// goroutines: a holding lost is reported once its monitor has seen it).
func awaitGauge(t testing.TB, r *rig, want float64, name string, kv ...attribute.KeyValue) {
	t.Helper()
	var got float64
	var ok bool
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, ok = num(t, r.collect(t), name, kv...); ok && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v = %v (found %v), want %v", name, kv, got, ok, want)
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
// while it is held. The requests they sent are recorded by op.
func TestGaugesRealServer(t *testing.T) {
	itest.NoLeaks(t)
	cluster := zktest.ForTest(t)
	ctx := itest.Ctx(t, 90*time.Second)
	r := newRig(t)
	link := itest.NewLink(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, cluster, itest.Opts{Link: link, NS: ns, Extra: []client.Option{client.WithHooks(r.t.Hooks())}})
	newMutex := func() *mutex.Mutex {
		mu, err := mutex.New(c, "/lock")
		if err != nil {
			t.Fatal(err)
		}
		return mu
	}
	mx := AttrRecipe.String(client.RecipeMutex)
	const (
		holders = "zkrecipes.holders"
		waiters = "zkrecipes.waiters"
		leaders = "zkrecipes.leaders"
		ageHold = "zkrecipes.holding.oldest.age"
		ageWait = "zkrecipes.wait.oldest.age"
	)

	t.Run("wait cancelled, try busy", func(t *testing.T) {
		holder, waiter, trier := newMutex(), newMutex(), newMutex()
		if err := holder.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 1, holders, mx)
		wctx, cancel := context.WithCancel(ctx)
		waited := make(chan error, 1)
		go func() { waited <- waiter.Lock(wctx) }()
		awaitGauge(t, r, 1, waiters, mx)
		time.Sleep(200 * time.Millisecond)
		if age := gaugeOf(t, r, ageWait, mx); age < 0.2 {
			t.Errorf("the waiter waited 200 ms and more: oldest wait %vs", age)
		}
		if age := gaugeOf(t, r, ageHold, mx); age < 0.2 {
			t.Errorf("the holder held 200 ms and more: oldest holding %vs", age)
		}
		cancel()
		if err := <-waited; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled wait: %v", err)
		}
		awaitGauge(t, r, 0, waiters, mx)
		if err := trier.TryLock(ctx); !errors.Is(err, zkrecipes.ErrBusy) {
			t.Fatalf("TryLock of a held lock: %v", err)
		}
		ms := r.collect(t)
		wantNum(t, ms, waiters, 0, mx)
		wantNum(t, ms, holders, 1, mx)
		wantNum(t, ms, ageWait, 0, mx)
		if err := holder.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 0, holders, mx)
		wantNum(t, r.collect(t), ageHold, 0, mx)
	})

	t.Run("lost, then released", func(t *testing.T) {
		mu := newMutex()
		if err := mu.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 1, holders, mx)
		link.Cut()
		if !itest.WaitClosed(mu.Lost(), 10*time.Second) {
			t.Fatal("the holding was not lost under the cut")
		}
		awaitGauge(t, r, 0, holders, mx)
		link.Restore()
		itest.Eventually(t, 10*time.Second, "the connection back", func() bool { return c.State() == client.StateReconnected })
		if err := mu.Unlock(ctx); !errors.Is(err, zkrecipes.ErrLost) {
			t.Fatalf("Unlock after the loss: %v, want ErrLost", err)
		}
		if err := mu.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		ms := r.collect(t)
		wantNum(t, ms, holders, 1, mx)
		wantSum(t, ms, "zkrecipes.holdings.lost", 1, mx)
		if p := hist(t, ms, "zkrecipes.hold.duration", mx, AttrEnded.String(EndedLost)); p.Count != 1 {
			t.Errorf("%d holdings ended lost, want 1", p.Count)
		}
		if err := mu.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 0, holders, mx)
		wantNum(t, r.collect(t), waiters, 0, mx)
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
		s := AttrRecipe.String(client.RecipeSemaphore)
		awaitGauge(t, r, 3, holders, s)
		for i, l := range leases {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
			awaitGauge(t, r, float64(2-i), holders, s)
		}
		wantNum(t, r.collect(t), waiters, 0, s)
	})

	t.Run("leadership", func(t *testing.T) {
		latch := AttrRecipe.String(client.RecipeLatch)
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
		awaitGauge(t, r, 1, leaders, latch)
		awaitGauge(t, r, 1, waiters, latch)
		if err := first.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := second.Await(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 0, waiters, latch)
		awaitGauge(t, r, 1, leaders, latch)
		if err := second.Close(ctx); err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 0, leaders, latch)

		leader := AttrRecipe.String(client.RecipeLeader)
		err = election.Run(ctx, c, "/run", func(ctx context.Context, _ *election.Term) error {
			ms := r.collect(t)
			wantNum(t, ms, leaders, 1, leader)
			wantNum(t, ms, waiters, 0, leader)
			return nil
		}, election.WithRunOnce())
		if err != nil {
			t.Fatal(err)
		}
		awaitGauge(t, r, 0, leaders, leader)
		ms := r.collect(t)
		if _, ok := num(t, ms, holders, latch); ok {
			t.Error("a leadership counted as a holding")
		}
		if _, ok := num(t, ms, leaders, mx); ok {
			t.Error("a lock counted as a leadership")
		}
	})

	t.Run("requests", func(t *testing.T) {
		ms := r.collect(t)
		for _, op := range []string{client.OpCreate, client.OpGetChildren, client.OpDelete} {
			if p := hist(t, ms, "zkrecipes.request.duration", AttrOp.String(op)); p.Count < 1 {
				t.Errorf("%s requests: %d", op, p.Count)
			}
		}
	})
}
