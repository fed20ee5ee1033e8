package main

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The multi-lock recipes: zkrecipes' mutex.Multi and Curator 5.4's
// InterProcessMultiLock (in java/CuratorLockBench.java), each over the
// mutexes of multiLockPaths paths under the run's directory.
const (
	recipeMultiLock        = "multilock"
	recipeCuratorMultiLock = "curator-multilock"
	multiLockPaths         = 3
)

// multiLockDirs are the paths of a multi-lock run on dir: dir/p0, dir/p1, ...
// (sorted, so Curator takes them in the same order as mutex.Multi).
func multiLockDirs(dir string) []string {
	ps := make([]string, multiLockPaths)
	for i := range ps {
		ps[i] = fmt.Sprintf("%s/p%d", dir, i)
	}
	return ps
}

// multiLockRecipe measures mutex.Multi: one client and one handle per
// worker, every worker on the same paths.
func multiLockRecipe(e *env, dir string, session time.Duration) *recipe {
	return &recipe{
		newWorker: func(ctx context.Context, _ int) (worker, error) {
			c, err := startClient(ctx, e, session)
			if err != nil {
				return worker{}, err
			}
			m, err := mutex.NewMulti(c, multiLockDirs(dir))
			if err != nil {
				_ = c.Close()
				return worker{}, err
			}
			return worker{locker: m, close: func() { _ = c.Close() }}, nil
		},
		events: lockq.BenchWakeups,
	}
}
