package client

import (
	"context"
	"errors"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Hooks are the callbacks through which a Client, and every recipe built on
// it, tells what it does: for metrics and tracing. The modules under
// contrib/ turn them into Prometheus metrics (contrib/zkprom) and
// OpenTelemetry metrics and spans (contrib/zkotel); a test can record them.
//
// Every field may be nil, and a client without WithHooks has none: each
// place that reports then costs one nil check. The callbacks run
// synchronously, on the goroutine doing the work, sometimes with the
// client's locks held: they must be quick, must not block and must not call
// the client or a recipe. Their arguments are values the callee may keep.
type Hooks struct {
	// State is called for every state the client publishes (the states
	// Subscribe delivers), in order.
	State func(StateHook)
	// Retry is called when an operation failed with an error worth
	// retrying and the retry policy allows another attempt.
	Retry func(RetryHook)
	// DeletesPending is called with the number of guaranteed deletes still
	// running in the background (PendingDeletes) each time it changes.
	DeletesPending func(pending int)
	// Acquire is called when a recipe starts to wait for a holding: a lock,
	// a read or write lock, a lease, leadership. It returns the context the
	// wait runs under (one that carries a span, say; nil keeps ctx) and a
	// function the recipe calls exactly once, with the outcome (nil: none).
	Acquire func(ctx context.Context, a Acquisition) (context.Context, func(AcquireOutcome))
	// Held is called once for every holding that begins: a lock's node
	// holding, each lease (AcquireN's n leases are n holdings), a term of
	// leadership. A reader that joins its handle's read holding begins
	// none; a Downgrade begins a read holding. Each is followed by exactly
	// one Released with the same Recipe, Path and Since, so a gauge that
	// counts one up here and one down there never drifts.
	Held func(Holding)
	// Released is called once for every holding that ends: released,
	// lost, or its term over.
	Released func(Release)
	// CacheEvent is called for every event a cache (recipes/cache)
	// publishes, while the cache holds its view's write lock (so that no
	// read sees a view older than an event): keep it quick.
	CacheEvent func(CacheEventHook)
	// Request is called once for every request the client writes to a
	// server (pings and the session's own auth and set-watches requests
	// aside), when it has its outcome: its reply came, or its connection
	// was lost first. It runs on the connection's reader goroutine, ahead
	// of the reply's delivery: keep it quick.
	Request func(RequestHook)
}

// StateHook is one published state.
type StateHook struct {
	// State is the state published.
	State State
	// Previous is the state before it (zero before the first session).
	Previous State
	// InPrevious is how long the client was in Previous.
	InPrevious time.Duration
	// SessionID is the session the state is about.
	SessionID int64
}

// RetryHook is one failed attempt that will be retried.
type RetryHook struct {
	// Attempt is the number of the attempt that failed, from 1.
	Attempt int
	// Err is why it failed.
	Err error
	// Sleep is how long the client waits before the next attempt.
	Sleep time.Duration
}

// The recipes' names in Acquisition and Release: a small fixed set, fit for
// a metric label, and what a hook matches on to tell the recipes apart.
const (
	RecipeMutex          = "mutex"           // recipes/mutex
	RecipeReadLock       = "rwlock-read"     // recipes/rwlock, the read side
	RecipeWriteLock      = "rwlock-write"    // recipes/rwlock, the write side
	RecipeSemaphore      = "semaphore"       // recipes/semaphore, one lease
	RecipeSemaphoreMutex = "semaphore-mutex" // recipes/semaphore's NewMutex
	RecipeLatch          = "latch"           // recipes/election Latch: leadership
	RecipeLeader         = "leader"          // recipes/election Run: one term
)

// Acquisition names a wait for a holding.
type Acquisition struct {
	// Recipe is one of the Recipe constants.
	Recipe string
	// Path is the recipe's path, relative to the client's namespace. It has
	// as many values as the application has locks: think twice before
	// making it a metric label.
	Path string
}

// AcquireOutcome is how a wait ended.
type AcquireOutcome struct {
	// Wait is how long it lasted.
	Wait time.Duration
	// Err is nil when the holding was granted (the lock held, leadership
	// won), the context's error when the caller gave up, and the failure
	// otherwise.
	Err error
	// Cancelled is true when the wait failed after the caller's context
	// ended (Err is then that context's error, or wraps it).
	// StartAcquire sets it.
	Cancelled bool
}

// The outcomes of a wait (AcquireOutcome.Label): a small fixed set, fit
// for a metric label.
const (
	OutcomeAcquired  = "acquired"  // the holding was granted
	OutcomeBusy      = "busy"      // a try found it taken (Err matches zkrecipes.ErrBusy)
	OutcomeCancelled = "cancelled" // the caller's context ended first
	OutcomeFailed    = "failed"    // the wait failed otherwise
)

// Label names how the wait ended, by the one rule both contrib adapters
// use: OutcomeAcquired when Err is nil, OutcomeBusy when Err matches
// zkrecipes.ErrBusy, OutcomeCancelled when Cancelled is set, OutcomeFailed
// otherwise.
func (o AcquireOutcome) Label() string {
	switch {
	case o.Err == nil:
		return OutcomeAcquired
	case errors.Is(o.Err, zkrecipes.ErrBusy):
		return OutcomeBusy
	case o.Cancelled:
		return OutcomeCancelled
	}
	return OutcomeFailed
}

// Holding is a holding that began.
type Holding struct {
	// Recipe is one of the Recipe constants.
	Recipe string
	// Path is the recipe's path (see Acquisition.Path).
	Path string
	// Since is when it began: its Release has the same Since.
	Since time.Time
}

// Release is a holding that ended.
type Release struct {
	// Recipe is one of the Recipe constants.
	Recipe string
	// Path is the recipe's path (see Acquisition.Path).
	Path string
	// Since is when it began (the Since of its Holding).
	Since time.Time
	// Held is how long it was held.
	Held time.Duration
	// Lost is true when the holding ended because it may be gone (the
	// connection suspended, the session lost, the node deleted) rather
	// than by its holder's release.
	Lost bool
}

// CacheEventHook is one event of a cache.
type CacheEventHook struct {
	// Root is the cache's path.
	Root string
	// Type is the event's type as Curator names it: NODE_CREATED,
	// NODE_CHANGED, NODE_DELETED or INITIALIZED.
	Type string
}

// WithHooks makes the client, and every recipe built on it, report through
// h (see Hooks). The client keeps h: do not change its fields afterwards.
func WithHooks(h *Hooks) Option {
	return func(c *config) {
		if h == nil {
			c.errs = append(c.errs, errs.Invalid("nil hooks"))
			return
		}
		c.hooks = h
	}
}

// hooks returns the hooks given with WithHooks, or nil.
func (c *Client) hooks() *Hooks {
	if c == nil || c.closedCh == nil {
		return nil
	}
	return c.cfg.hooks
}

// startAcquire reports the start of a wait for a holding (see
// Hooks.Acquire) and returns the context to wait under and the function to
// call once with the outcome. Without an Acquire hook, or with an empty
// recipe (a holding that is not reported), it returns ctx and a function
// that does nothing, without allocating.
func (h *Hooks) startAcquire(ctx context.Context, recipe, path string) (context.Context, func(error)) {
	if h == nil || h.Acquire == nil || recipe == "" {
		return ctx, noOutcome
	}
	start := time.Now()
	wctx, done := h.Acquire(ctx, Acquisition{Recipe: recipe, Path: path})
	if wctx == nil {
		wctx = ctx
	}
	if done == nil {
		return wctx, noOutcome
	}
	return wctx, func(err error) {
		done(AcquireOutcome{Wait: time.Since(start), Err: err, Cancelled: err != nil && ctx.Err() != nil})
	}
}

func noOutcome(error) {}

// held reports a holding that began at since (see Hooks.Held); nothing
// without a Held hook or with an empty recipe.
func (h *Hooks) held(recipe, path string, since time.Time) {
	if h == nil || h.Held == nil || recipe == "" {
		return
	}
	h.Held(Holding{Recipe: recipe, Path: path, Since: since})
}

// release reports a holding that began at since and ended now (see
// Hooks.Released); nothing without a Released hook or with an empty recipe.
func (h *Hooks) release(recipe, path string, since time.Time, lost bool) {
	if h == nil || h.Released == nil || recipe == "" {
		return
	}
	h.Released(Release{Recipe: recipe, Path: path, Since: since, Held: time.Since(since), Lost: lost})
}

// cache reports a cache's event (see Hooks.CacheEvent); nothing without a
// CacheEvent hook.
func (h *Hooks) cache(root, typ string) {
	if h == nil || h.CacheEvent == nil {
		return
	}
	h.CacheEvent(CacheEventHook{Root: root, Type: typ})
}
