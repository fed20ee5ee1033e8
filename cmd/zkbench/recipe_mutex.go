package main

import (
	"context"
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// mutexRecipe measures zkrecipes' recipes/mutex: one client and one handle
// per worker. Its waiter events are the queue core's own count of the watch
// events its waiters received (process-wide, hence measured as a delta).
func mutexRecipe(e *env, dir string, session time.Duration) *recipe {
	return &recipe{
		newWorker: func(ctx context.Context, _ int) (worker, error) {
			c, err := startClient(ctx, e, session)
			if err != nil {
				return worker{}, err
			}
			m, err := mutex.New(c, dir)
			if err != nil {
				_ = c.Close()
				return worker{}, err
			}
			return worker{locker: m, close: func() { _ = c.Close() }}, nil
		},
		events: lockq.BenchWakeups,
	}
}
