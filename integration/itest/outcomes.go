package itest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// AcquireEachOutcome makes, on c (whose hooks are hooks), one wait of each
// outcome the hooks tell apart (client.AcquireOutcome.Label), for the
// metrics adapters' tests: a mutex acquired, a TryLock of it by another
// handle (busy), a Lock of it whose context ends (cancelled), and a Lock
// on a closed client with the same hooks (failed); a semaphore lease
// acquired and a TryAcquire that finds no lease free (busy, ErrNoLeases);
// a semaphore mutex held and a TryLock of it (busy). It releases what it
// took.
func AcquireEachOutcome(t testing.TB, ctx context.Context, cluster *zktest.Cluster, c *client.Client, hooks *client.Hooks) {
	t.Helper()
	newMutex := func(c *client.Client) *mutex.Mutex {
		m, err := mutex.New(c, "/outcomes/lock")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	holder, other := newMutex(c), newMutex(c)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Unlock(ctx) }()
	err := other.TryLock(ctx)
	if !errors.Is(err, zkrecipes.ErrLocked) || !errors.Is(err, zkrecipes.ErrBusy) {
		t.Fatalf("TryLock of a held lock: %v, want ErrLocked and zkrecipes.ErrBusy", err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := other.Lock(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock of a held lock until ctx ends: %v", err)
	}

	sem := func() *semaphore.Semaphore {
		s, err := semaphore.New(c, "/outcomes/sem", 1)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	lease, err := sem().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lease.Release(ctx) }()
	if _, err := sem().TryAcquire(ctx); !errors.Is(err, semaphore.ErrNoLeases) || !errors.Is(err, zkrecipes.ErrBusy) {
		t.Fatalf("TryAcquire with no lease free: %v, want ErrNoLeases and zkrecipes.ErrBusy", err)
	}

	semMutex := func() *semaphore.Mutex {
		m, err := semaphore.NewMutex(c, "/outcomes/semmutex")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	sm := semMutex()
	if err := sm.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sm.Unlock(ctx) }()
	if err := semMutex().TryLock(ctx); !errors.Is(err, zkrecipes.ErrLocked) || !errors.Is(err, zkrecipes.ErrBusy) {
		t.Fatalf("TryLock of a held semaphore mutex: %v, want ErrLocked and zkrecipes.ErrBusy", err)
	}

	closed := Connect(t, cluster, Opts{NS: Namespace(t), Extra: []client.Option{client.WithHooks(hooks)}})
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := newMutex(closed).Lock(ctx); !errors.Is(err, zkrecipes.ErrClosed) {
		t.Fatalf("Lock on a closed client: %v, want ErrClosed", err)
	}
}
