package main

import (
	"context"
	"io"
	"testing"
)

// benchUncontended measures one worker's lock/unlock cycle of recipe, one
// cycle per b.N, against the package's shared server.
func benchUncontended(b *testing.B, recipeName string) {
	ctx := context.Background()
	e, err := openEnv(ctx, zkAddr, "", false, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	cfg := runConfig{recipe: recipeName, workers: 1, iters: 1, session: defaultSession}
	rec, err := newRecipe(ctx, e, cfg)
	if err != nil {
		b.Fatal(err)
	}
	ws, err := openWorkers(ctx, 1, rec.newWorker)
	if err != nil {
		b.Fatal(err)
	}
	defer closeWorkers(ws)
	w := ws[0]
	// The process's CPU time (user + system, every thread: the client's
	// goroutines, the runtime and its GC; the server is another process)
	// over the measured cycles.
	cpu0 := cpuTime()
	for b.Loop() {
		if err := w.Lock(ctx); err != nil {
			b.Fatal(err)
		}
		if err := w.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e3, "cpu-us/op")
}

// BenchmarkMutex is zkrecipes' recipes/mutex, uncontended.
func BenchmarkMutex(b *testing.B) { benchUncontended(b, recipeMutex) }

// BenchmarkGozkLock is go-zookeeper's zk.Lock, uncontended.
func BenchmarkGozkLock(b *testing.B) { benchUncontended(b, recipeGozk) }

// BenchmarkFloor is the bare create + getChildren + delete cycle.
func BenchmarkFloor(b *testing.B) { benchUncontended(b, recipeFloor) }
