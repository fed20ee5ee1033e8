package cache

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// lifecycle of a Cache.
type phase int

const (
	idle phase = iota
	started
	closed
)

// Cache is a local view of one node or subtree kept current by watches: see
// the package documentation. It is safe for concurrent use. A zero Cache
// returns an error wrapping zkrecipes.ErrInvalidArgument from every method that
// returns an error, and nothing from the others.
type Cache struct {
	cl   *client.Client
	path string
	opt  options
	log  *slog.Logger

	stopCtx context.Context // cancelled by Close
	stop    context.CancelFunc

	closeOnce sync.Once
	closeCtx  context.Context // Close's, set before stopCtx ends
	wg        sync.WaitGroup  // the loop and its reads
	initCh    chan struct{}   // closed after the first full load
	doneCh    chan struct{}   // closed when the loop has ended

	mu    sync.RWMutex
	phase phase
	index map[string]*entry // every entry, by path
	root  *entry
	hub   pubsub.Hub[Event] // Events' subscribers
}

// New returns a cache of the node at path (relative to the client's
// namespace) and, unless an option says otherwise, every node below it. It
// does no I/O: Start begins the load.
func New(c *client.Client, path string, opts ...Option) (*Cache, error) {
	if c == nil {
		return nil, errs.Invalid("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return nil, err
	}
	o := options{maxDepth: noLimit, maxFlight: defaultFlight}
	if err := option.Apply("cache "+path, &o, opts); err != nil {
		return nil, err
	}
	o.logger = access.RecipeLogger(c, "cache", path)
	ctx, stop := context.WithCancel(context.Background())
	root := &entry{path: path}
	return &Cache{
		cl:      c,
		path:    path,
		opt:     o,
		log:     o.logger,
		stopCtx: ctx,
		stop:    stop,
		initCh:  make(chan struct{}),
		doneCh:  make(chan struct{}),
		index:   map[string]*entry{path: root},
		root:    root,
	}, nil
}

// Path is the cache's root, relative to the client's namespace.
func (c *Cache) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// Start begins the first load and returns once it is done (the
// Initialized event), or ctx ends, or the cache or its client closes. The
// cache keeps its view current until Close; when ctx ends first, Start
// returns ctx's error and the load goes on in the background (Close the
// cache all the same). Subscribers (Events) that came before Start see
// every event, from the first Created on. A second Start returns an error
// wrapping zkrecipes.ErrAlreadyStarted, a Start after Close one wrapping
// zkrecipes.ErrClosed (also when the client closes before the load is
// done).
func (c *Cache) Start(ctx context.Context) error {
	if c == nil || c.cl == nil {
		return errZero()
	}
	if err := c.begin(); err != nil {
		return err
	}
	if pubsub.IsClosed(c.doneCh) {
		// The loop ended with the client: ErrClosed, every time (the select
		// below would pick at random between initCh and doneCh once both
		// are closed).
		return c.closedErr()
	}
	select {
	case <-c.initCh:
		if pubsub.IsClosed(c.doneCh) {
			return c.closedErr()
		}
		return nil
	case <-c.doneCh:
		return c.closedErr()
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: start cache %s: %w", c.path, ctx.Err())
	}
}

// begin starts the loop, once.
func (c *Cache) begin() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.phase {
	case started:
		return life.AlreadyStarted
	case closed:
		return life.Closed
	}
	// Subscribe before the first read: no notification of a watch that read
	// sets can come before the subscription.
	events, stopEvents, err := c.cl.NodeEvents(c.path)
	if err != nil {
		return err
	}
	states, stopStates := c.cl.Subscribe()
	c.phase = started
	l := newLoop(c, events, stopEvents, states)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		// After the loop: also when the client closed under it. doneCh
		// first, so that a subscriber that sees its channel closed finds
		// the cache done (Start: zkrecipes.ErrClosed).
		defer c.hub.Close()
		defer close(c.doneCh)
		defer stopStates()
		defer stopEvents()
		l.run()
	}()
	return nil
}

// closedErr is the error of a call on a cache whose loop is over (or never
// runs again): the cache's own when it was closed, else the client's
// (the loop ended with the client).
func (c *Cache) closedErr() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.phase == closed {
		return life.Closed
	}
	return errs.ClientClosed
}

// Initialized returns a channel that is closed once the first full load is
// done.
func (c *Cache) Initialized() <-chan struct{} {
	if c == nil || c.cl == nil {
		return nil
	}
	return c.initCh
}

// Get returns the cached node at path, if the cache has it. Its view is
// never older than the last event delivered to any subscriber.
func (c *Cache) Get(path string) (Node, bool) {
	if c == nil || c.cl == nil {
		return Node{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.index[path]
	if e == nil || !e.live {
		return Node{}, false
	}
	return e.node(), true
}

// Children returns the cached children of the node at path, sorted by path
// (none when the cache has not that node).
func (c *Cache) Children(path string) []Node {
	if c == nil || c.cl == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.index[path]
	if e == nil || !e.live {
		return nil
	}
	var out []Node
	for _, k := range e.children() {
		if k.live {
			out = append(out, k.node())
		}
	}
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Nodes returns every cached node, sorted by path: the whole view at one
// instant.
func (c *Cache) Nodes() []Node {
	if c == nil || c.cl == nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]Node, 0, len(c.index))
	for _, e := range c.index {
		if e.live {
			out = append(out, e.node())
		}
	}
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Len is the number of cached nodes.
func (c *Cache) Len() int {
	if c == nil || c.cl == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := 0
	for _, e := range c.index {
		if e.live {
			n++
		}
	}
	return n
}

// Close stops the cache: its reads end and every subscription's channel is
// closed. The view is emptied. A cache on a persistent watch removes it
// from the server, within ctx and at most a second (with no connection it
// stays until the session ends); per-node watches stay until they fire or
// the session ends. A second Close waits for the first to end and returns
// the same result.
func (c *Cache) Close(ctx context.Context) error {
	if c == nil || c.cl == nil {
		return errZero()
	}
	c.closeOnce.Do(func() { c.close(ctx) })
	return nil
}

// close is the first Close.
func (c *Cache) close(ctx context.Context) {
	c.mu.Lock()
	wasStarted := c.phase == started
	c.phase = closed
	c.closeCtx = ctx
	c.mu.Unlock()
	c.stop()
	if wasStarted {
		<-c.doneCh
	}
	c.hub.Close()
	c.mu.Lock()
	c.index = map[string]*entry{}
	c.mu.Unlock()
	c.wg.Wait()
	c.hub.Wait()
}
