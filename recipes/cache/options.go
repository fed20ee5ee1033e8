package cache

import (
	"log/slog"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Option configures a Cache.
type Option func(*options) error

type options struct {
	maxDepth  int // levels below the root to cache; noLimit for all
	filter    func(path string) bool
	noData    bool
	logger    *slog.Logger
	maxFlight int
	perNode   bool // a watch per node even where a persistent watch could serve
}

// noLimit is maxDepth when every level is cached.
const noLimit = int(^uint(0) >> 1)

// defaultFlight bounds the reads in flight at once (the initial load of a
// large tree pipelines this many requests on the one connection).
const defaultFlight = 128

// WithDepth caches the root and depth levels below it: 1 is the root and its
// children (Curator's PathChildrenCache), 2 adds grandchildren, and so on.
// Without it every level is cached (Curator's TreeCache and CuratorCache).
// A depth below 1 is an error wrapping zkrecipes.ErrInvalidArgument; for the root
// alone use WithSingleNode.
func WithDepth(depth int) Option {
	return func(o *options) error {
		if depth < 1 {
			return errs.Invalid("depth %d: must be at least 1 (WithSingleNode caches the root alone)", depth)
		}
		o.maxDepth = depth
		return nil
	}
}

// WithSingleNode caches the root alone, as Curator's NodeCache and
// CuratorCache's SINGLE_NODE_CACHE option do: no child is listed or watched.
func WithSingleNode() Option {
	return func(o *options) error {
		o.maxDepth = 0
		return nil
	}
}

// WithFilter caches only the nodes below the root for which keep returns
// true, and nothing under a node it refuses (Curator's TreeCacheSelector,
// in one function). It is called with a node's path, relative to the
// client's namespace, on the cache's own goroutine, and must be quick and
// must not call the cache. The root is always cached. A nil keep is an
// error wrapping zkrecipes.ErrInvalidArgument.
func WithFilter(keep func(path string) bool) Option {
	return func(o *options) error {
		if keep == nil {
			return errs.Invalid("nil filter")
		}
		o.filter = keep
		return nil
	}
}

// WithoutData keeps each node's stat but not its data, so memory stays
// bounded by the number of nodes whatever their size (Curator's
// cacheData(false)). Node.Data is then always nil, and Changed events still
// come for every write.
func WithoutData() Option {
	return func(o *options) error {
		o.noData = true
		return nil
	}
}

// WithWatchPerNode keeps a watch on every cached node, as on a server
// before ZooKeeper 3.6, even where one persistent recursive watch on the
// root could serve (see the package documentation). The server then holds
// about one watch per node (two per node with children) instead of one.
func WithWatchPerNode() Option {
	return func(o *options) error {
		o.perNode = true
		return nil
	}
}
