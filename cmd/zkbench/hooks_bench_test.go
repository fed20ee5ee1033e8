package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// noopHooks has every callback set and doing nothing: what a client pays
// for being observed, minus the observer's own work.
func noopHooks() *client.Hooks {
	return &client.Hooks{
		State:          func(client.StateHook) {},
		Retry:          func(client.RetryHook) {},
		DeletesPending: func(int) {},
		Acquire: func(ctx context.Context, _ client.Acquisition) (context.Context, func(client.AcquireOutcome)) {
			return ctx, func(client.AcquireOutcome) {}
		},
		Released:   func(client.Release) {},
		CacheEvent: func(client.CacheEventHook) {},
	}
}

// BenchmarkMutexHandoffHooks measures one handoff of a mutex between two
// sessions (A unlocks, B's waiting Lock returns; then back), with no hooks
// (the default) and with hooks that do nothing, alternating the two in
// one run. Each op is one handoff.
//
//	ZK_BACKEND=local go test -run '^$' -bench MutexHandoffHooks -count 6 ./cmd/zkbench/
func BenchmarkMutexHandoffHooks(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []client.Option
	}{
		{"nil", nil},
		{"noop", []client.Option{client.WithHooks(noopHooks())}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchHandoff(b, tc.opts) })
	}
}

func benchHandoff(b *testing.B, opts []client.Option) {
	ctx := context.Background()
	path := fmt.Sprintf("/zkbench-hooks/%016x", rand.Uint64())
	var ms [2]*mutex.Mutex
	for i := range ms {
		c, err := client.New(append([]client.Option{client.WithServers(strings.Split(zkAddr, ",")...),
			client.WithSessionTimeout(10 * time.Second), client.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if ms[i], err = mutex.New(c, path); err != nil {
			b.Fatal(err)
		}
	}
	if err := ms[0].Lock(ctx); err != nil {
		b.Fatal(err)
	}
	holder := 0
	for b.Loop() {
		next := 1 - holder
		got := make(chan error, 1)
		go func() { got <- ms[next].Lock(ctx) }()
		time.Sleep(200 * time.Microsecond) // let it queue behind the holder
		if err := ms[holder].Unlock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := <-got; err != nil {
			b.Fatal(err)
		}
		holder = next
	}
	if err := ms[holder].Unlock(ctx); err != nil {
		b.Fatal(err)
	}
}
