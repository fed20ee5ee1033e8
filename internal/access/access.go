// Package access gives zkrecipes' recipes what package client keeps off its
// public surface: its logger, its retry policy, the reporting of waits and
// holdings to its hooks, and the plumbing of shared data watches. Package
// client fills it in when it is initialised (Register); every function
// takes the *client.Client (or *client.Watch) as an any, because this
// package cannot import client.
package access

import (
	"context"
	"log/slog"
	"time"

	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zookeeper/zk"
)

// Impl is what package client registers.
type Impl struct {
	// Logger returns the client's logger (never nil).
	Logger func(c any) *slog.Logger
	// RetryPolicy returns the client's retry policy.
	RetryPolicy func(c any) retry.Policy
	// StartAcquire reports the start of a wait for a holding and returns
	// the context to wait under and the function to call once with its
	// outcome.
	StartAcquire func(c any, ctx context.Context, recipe, path string) (context.Context, func(error))
	// Held reports a holding that began at since.
	Held func(c any, recipe, path string, since time.Time)
	// Released reports a holding that began at since and ended now.
	Released func(c any, recipe, path string, since time.Time, lost bool)
	// CacheEvent reports a cache's event.
	CacheEvent func(c any, root, typ string)
	// WatchC is the channel a *client.Watch's event comes on, shared by
	// every Watch on the same server watch: it delivers the event to one
	// receiver and then closes, so every receive from it must go through
	// Resolve.
	WatchC func(w any) <-chan zk.Event
	// Resolve is a *client.Watch's Resolve: the watch's event, given what a
	// receive from its C returned.
	Resolve func(w any, ev zk.Event, ok bool) zk.Event
}

var impl Impl

// Register is called once, by package client's init.
func Register(i Impl) { impl = i }

// Logger returns the client's logger.
func Logger(c any) *slog.Logger { return impl.Logger(c) }

// RetryPolicy returns the client's retry policy.
func RetryPolicy(c any) retry.Policy { return impl.RetryPolicy(c) }

// StartAcquire reports the start of a wait for a holding of recipe at path
// through the client's hooks. Without an Acquire hook, or with an empty
// recipe, it returns ctx and a function that does nothing.
func StartAcquire(c any, ctx context.Context, recipe, path string) (context.Context, func(error)) {
	return impl.StartAcquire(c, ctx, recipe, path)
}

// Held reports a holding of recipe at path that began at since. Every
// holding reported here is reported once to Released, with the same since.
func Held(c any, recipe, path string, since time.Time) { impl.Held(c, recipe, path, since) }

// Released reports a holding of recipe at path, begun at since, that ended.
func Released(c any, recipe, path string, since time.Time, lost bool) {
	impl.Released(c, recipe, path, since, lost)
}

// CacheEvent reports an event of type typ of the cache rooted at root.
func CacheEvent(c any, root, typ string) { impl.CacheEvent(c, root, typ) }

// WatchC returns the channel a *client.Watch's event comes on; pass what a
// receive from it returns to Resolve.
func WatchC(w any) <-chan zk.Event { return impl.WatchC(w) }

// Resolve returns a *client.Watch's event, given what a receive from
// WatchC returned (the value and whether it was one): the event itself for
// the receiver that got it, and for the others (whose receive found the
// channel closed) the same event once that receiver has passed it on. It
// also forgets the fired server watch.
func Resolve(w any, ev zk.Event, ok bool) zk.Event { return impl.Resolve(w, ev, ok) }

// RecipeLogger returns the client's logger with the attributes that tell a
// recipe's lines apart: recipe (its name, "cache", "node", ...) and path.
// Recipes log routine events at Debug and only what an operator must see
// (something left behind, a failure that will not pass) at Warn: nothing
// at Info, so a service that did not ask for zkrecipes' lines sees none.
func RecipeLogger(c any, recipe, path string) *slog.Logger {
	return impl.Logger(c).With("recipe", recipe, "path", path)
}
