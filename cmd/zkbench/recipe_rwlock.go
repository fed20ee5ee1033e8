package main

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// rwlockRecipe measures recipes/rwlock: one client and one handle per
// worker; the first cfg.writers workers take the write lock, the rest the
// read lock (shared, so the driver lets readers overlap each other only).
func rwlockRecipe(_ context.Context, e *env, dir string, cfg runConfig) (*recipe, error) {
	return &recipe{
		newWorker: func(ctx context.Context, i int) (worker, error) {
			c, err := startClient(ctx, e, cfg.session)
			if err != nil {
				return worker{}, err
			}
			rw, err := rwlock.New(c, dir)
			if err != nil {
				_ = c.Close()
				return worker{}, err
			}
			closer := func() { _ = c.Close() }
			if i < cfg.writers {
				return worker{locker: rw.WriteLock(), close: closer}, nil
			}
			return worker{locker: rw.ReadLock(), shared: true, close: closer}, nil
		},
		events: lockq.BenchWakeups,
	}, nil
}
