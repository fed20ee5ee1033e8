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
	// Full returns a valid path as the server knows it: under the
	// client's namespace.
	Full func(c any, path string) string
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
	// CreateProtectedList is the client's CreateProtected (no options)
	// that lists the node's parent right behind the create, in the same
	// write; node is the *client.ProtectedNode to set.
	CreateProtectedList func(c any, ctx context.Context, path string, data []byte, flags int32, node any) (kids []string, listed bool, err error)
	// Reads is the client's Reads.
	Reads func(c any, reads []Read, done func(*Reply))
	// WatchLoss and UnwatchLoss are the client's WatchLoss and UnwatchLoss.
	WatchLoss, UnwatchLoss func(c any, w *LossWatch) bool
}

// LossWatch is a registration of WatchLoss.
type LossWatch struct {
	// Disc is a channel from the client's Disconnected (nil: watch the
	// session alone).
	Disc <-chan struct{}
	// Sess is the *client.Session to watch.
	Sess any
	// F is called with Arg, once.
	F func(arg any)
	// Arg is F's argument.
	Arg any
	// Slot is the client's (its index in the client's list).
	Slot int
}

// Read is one read of Reads: a node's data (getData) or, with Children, its
// children (getChildren2), without a watch. Tag and Seq are the caller's,
// given back with the reply.
type Read struct {
	Path     string // relative to the client's namespace
	Children bool   // list the children instead of reading the data
	Tag      any    // the caller's, given back
	Seq      uint64 // the caller's, given back
}

// Reply is a Read's outcome. Err is the server's (zk.ErrNoNode, ...) or
// the connection's (zk.ErrConnectionClosed: no connection, or it was lost
// before the reply; zkrecipes.ErrClosed: the client is closed); Stat is
// set when Err is nil. A Reply is valid only during the call to done: Data
// and Kids are the caller's to keep, the Reply itself is not.
type Reply struct {
	Read
	Data []byte   // a data read's data
	Kids []string // a listing's children
	Stat zk.Stat  // the node's stat, when Err is nil
	Err  error    // the server's or the connection's error
}

var impl Impl

// Register is called once, by package client's init.
func Register(i Impl) { impl = i }

// Logger returns the client's logger.
func Logger(c any) *slog.Logger { return impl.Logger(c) }

// Full returns the valid path as the server knows it: under the client's
// namespace (a raw connection's requests and multi results speak it).
func Full(c any, path string) string { return impl.Full(c, path) }

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

// CreateProtectedList is c's CreateProtected(ctx, path, data, flags) that
// also lists the new node's parent right behind the create, in the same
// write, at no round trip of its own: kids are the parent's children as
// the server saw them just after the create, when listed. When the create
// took another path (a parent was missing, an earlier attempt's outcome was
// unknown) or the listing failed, listed is false: the caller lists. node
// is the *client.ProtectedNode it sets to the node made (on success).
func CreateProtectedList(c any, ctx context.Context, path string, data []byte, flags int32, node any) (kids []string, listed bool, err error) {
	return impl.CreateProtectedList(c, ctx, path, data, flags, node)
}

// Reads sends reads on c's connection, all in one write, without waiting
// for their replies: many reads in flight at once load a tree far faster
// than one at a time. done is called once for each read, with its reply,
// on the connection's reader goroutine (or at once, on the caller's, when
// there is no connection); it must be quick and must not block. Nothing
// is retried: the caller reads again what failed.
func Reads(c any, reads []Read, done func(*Reply)) { impl.Reads(c, reads, done) }

// WatchLoss arranges for w.F(w.Arg) to be called once w.Disc is closed (the
// connection was lost) or w.Sess ends, whichever comes first: on the
// goroutine that closes or ends it, with the client's lock held, so F must
// be quick and must not call the client (a holding starts its monitor
// there). It reports false, and never calls F, when either has happened
// already. It lets a holding watch for its loss without a goroutine of its
// own.
func WatchLoss(c any, w *LossWatch) bool { return impl.WatchLoss(c, w) }

// UnwatchLoss removes w; it reports whether w was still registered (F not
// called, and now never called).
func UnwatchLoss(c any, w *LossWatch) bool { return impl.UnwatchLoss(c, w) }

// RecipeLogger returns the client's logger with the attributes that tell a
// recipe's lines apart: recipe (its name, "cache", "node", ...) and path.
// Recipes log routine events at Debug and only what an operator must see
// (something left behind, a failure that will not pass) at Warn: nothing
// at Info, so a service that did not ask for zkrecipes' lines sees none.
func RecipeLogger(c any, recipe, path string) *slog.Logger {
	return impl.Logger(c).With("recipe", recipe, "path", path)
}
