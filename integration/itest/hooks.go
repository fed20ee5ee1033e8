package itest

import (
	"context"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// StartAcquire reports a wait through h as the recipes do (they reach the
// client's own helper through an internal package), for the metrics
// adapters' tests that script their hooks: the Acquire hook, then the
// outcome with its wait, Cancelled when the caller's ctx had ended.
// Without an Acquire hook, or with an empty recipe, it returns ctx and a
// function that does nothing.
func StartAcquire(h *client.Hooks, ctx context.Context, recipe, path string) (context.Context, func(error)) {
	if h == nil || h.Acquire == nil || recipe == "" {
		return ctx, func(error) {}
	}
	start := time.Now()
	wctx, done := h.Acquire(ctx, client.Acquisition{Recipe: recipe, Path: path})
	if wctx == nil {
		wctx = ctx
	}
	if done == nil {
		return wctx, func(error) {}
	}
	return wctx, func(err error) {
		done(client.AcquireOutcome{Wait: time.Since(start), Err: err, Cancelled: err != nil && ctx.Err() != nil})
	}
}
