package itest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
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

// WaitEnd is one way a wait ends as a recipe reports it, through
// StartAcquire: the caller's context and the error the wait ended with,
// and the outcome (client.AcquireOutcome.Label) it must count as.
type WaitEnd struct {
	Ctx     context.Context // the caller's: ended or not
	Err     error           // what the wait ended with
	Outcome string          // client.OutcomeAcquired...
}

// WaitEnds are the ways a wait ends that the metrics adapters' tests
// report, each with its outcome: a try that finds the holding taken is
// busy, not failed, even once the caller's context has ended; cancelled
// means the caller's context ended, whatever error that made; a context
// error the caller did not cause is a failure, as is any other error.
func WaitEnds() []WaitEnd {
	ended, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("shutting down"))
	return []WaitEnd{
		{context.Background(), nil, client.OutcomeAcquired},
		{context.Background(), semaphore.ErrNoLeases, client.OutcomeBusy},
		{context.Background(), fmt.Errorf("try lock /a: %w", zkrecipes.ErrBusy), client.OutcomeBusy},
		{ended, semaphore.ErrNoLeases, client.OutcomeBusy},
		{ended, context.Canceled, client.OutcomeCancelled},
		{ended, context.Cause(ended), client.OutcomeCancelled},
		{context.Background(), fmt.Errorf("lock /a: %w", context.DeadlineExceeded), client.OutcomeFailed},
		{context.Background(), zkrecipes.ErrClosed, client.OutcomeFailed},
		{context.Background(), errors.New("zk: no auth"), client.OutcomeFailed},
	}
}
