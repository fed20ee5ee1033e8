package main

import (
	"context"
	"errors"
)

// errRWLockNotBuilt is what -recipe rwlock reports until the hook below is
// filled in.
var errRWLockNotBuilt = errors.New("rwlock not built in yet")

// rwlockRecipe is the hook for recipes/rwlock.
//
// ===== HOOK: recipes/rwlock is not wired in yet. =====
//
// To fill it in, return a *recipe whose newWorker, for worker i, starts a
// client of its own (startClient(ctx, e, cfg.session)), makes
// rw, err := rwlock.New(c, dir), and returns
//
//	worker{locker: rw.WriteLock(), close: ...}                for i <  cfg.writers
//	worker{locker: rw.ReadLock(), shared: true, close: ...}   for i >= cfg.writers
//
// (each side must have Lock(ctx) error and Unlock(ctx) error), with events:
// queue.Wakeups. The driver then checks that no writer is ever inside with
// anyone, and that readers are inside only with readers.
func rwlockRecipe(ctx context.Context, e *env, dir string, cfg runConfig) (*recipe, error) {
	return nil, errRWLockNotBuilt
}
