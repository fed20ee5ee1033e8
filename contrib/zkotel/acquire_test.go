package zkotel

import (
	"context"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// startAcquire reports a wait through h as the recipes do (they reach the
// client's own helper through an internal package): the Acquire hook, then
// the outcome with its wait, Cancelled when the caller's ctx had ended.
func startAcquire(h *client.Hooks, ctx context.Context, recipe, path string) (context.Context, func(error)) {
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
