package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// allPlan is the -all comparison matrix. Each run does about the same number
// of measured cycles as its neighbours where that stays quick; the herd lock
// with many waiters gets fewer, since each of its cycles costs a listing per
// waiter. With big, runs with 1000 waiters (1000 sessions) are added, at two
// cycles per waiter; the herd lock's is cut off after bigBudget (at ~3
// cycles/s here it would take ~11 minutes), and reports the cycles it did.
// bigBudget caps the herd lock's run with 1000 waiters.
const bigBudget = 60 * time.Second

func allPlan(big bool, session time.Duration) []runConfig {
	r := func(recipe string, workers, iters, warmup int) runConfig {
		return runConfig{recipe: recipe, workers: workers, iters: iters, warmup: warmup, session: session}
	}
	rw := func(readers, writers, iters int) runConfig {
		c := r(recipeRWLock, readers+writers, iters, 2)
		c.readers, c.writers = readers, writers
		return c
	}
	plan := []runConfig{
		r(recipeFloor, 1, 1000, 50),
		r(recipeMutex, 1, 1000, 50),
		r(recipeGozk, 1, 1000, 50),
		r(recipeNaive, 1, 1000, 50),
		r(recipeMutex, 10, 200, 5),
		r(recipeGozk, 10, 200, 5),
		r(recipeNaive, 10, 200, 5),
		r(recipeMutex, 100, 20, 1),
		r(recipeNaive, 100, 5, 1),
		// Readers alone, to show they do not serialise; then writers among
		// readers, whose handoff compares with the mutex's.
		rw(1, 0, 200), rw(4, 0, 100), rw(16, 0, 50),
		rw(8, 2, 50),
	}
	if big {
		herd := r(recipeNaive, 1000, 2, 0)
		herd.budget = bigBudget
		plan = append(plan, r(recipeMutex, 1000, 2, 0), herd)
	}
	return plan
}

// serverWarmup is how many unmeasured cycles runAll spends per
// single-worker run before measuring anything.
var serverWarmup = 1000

// runAll runs plan against one environment: a settings line starting with
// '#', then one result line per run, each printed as soon as it is done.
func runAll(ctx context.Context, e *env, plan []runConfig, stdout io.Writer) error {
	var settings []string
	for _, c := range plan {
		s := fmt.Sprintf("%s/w%d/i%d/k%d", c.recipe, c.workers, c.iters, c.warmup)
		if c.budget > 0 {
			s += fmt.Sprintf("/max%v", c.budget)
		}
		settings = append(settings, s)
	}
	session := time.Duration(0)
	if len(plan) > 0 {
		session = plan[0].session
	}
	if _, err := fmt.Fprintf(stdout, "# zkbench -all: %s; session=%v; server warm-up: %d unmeasured cycles of each 1-worker run; runs (recipe/workers/iters per worker/warm-up per worker): %s\n",
		e.describe(), session, serverWarmup, strings.Join(settings, " ")); err != nil {
		return err
	}
	// A fresh server's JVM compiles its hot paths during the first thousands
	// of requests: whichever run came first would be measured on a slower
	// server. Warm it up with every single-worker run first, unmeasured.
	for _, c := range plan {
		if c.workers == 1 && serverWarmup > 0 {
			w := c
			w.iters, w.warmup = serverWarmup, 0
			if _, err := runOne(ctx, e, w); err != nil {
				return fmt.Errorf("server warm-up with %s: %w", c.recipe, err)
			}
		}
	}
	for _, c := range plan {
		res, err := runOne(ctx, e, c)
		if err != nil {
			return fmt.Errorf("%s with %d workers: %w", c.recipe, c.workers, err)
		}
		if _, err := fmt.Fprintln(stdout, res.line()); err != nil {
			return err
		}
	}
	return nil
}
