package discovery

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

type phase int

const (
	idle phase = iota
	started
	closed
)

// Cache is a local view of one service's instances, kept current by
// watches (Curator's ServiceCache): a recipes/cache Cache of base/name and
// its children, each child's data decoded as an instance. A child whose
// data is no instance is left out (and logged). It is safe for concurrent
// use. A zero Cache returns an error wrapping zkrecipes.ErrInvalidArgument from every
// method that returns an error, and nothing from the others.
type Cache struct {
	d    *Discovery
	name string
	path string
	cc   *cache.Cache
	errs *errs.Life // what its errors call it: a service cache, or a provider

	wg       sync.WaitGroup // the pump
	initCh   chan struct{}  // closed after the initial load
	initOnce sync.Once
	doneCh   chan struct{} // closed when the pump has ended

	closeOnce sync.Once

	mu        sync.RWMutex
	phase     phase
	instances map[string]Instance // by node name
	hub       pubsub.Hub[Event]   // Events' subscribers
}

// NewCache returns a cache of service name's instances. It does no I/O:
// Start loads it. Close the Discovery or the cache to stop it.
func (d *Discovery) NewCache(name string) (*Cache, error) { return d.newCache(name, cacheErrors) }

// newCache is NewCache, for a cache whose errors say what e says.
func (d *Discovery) newCache(name string, e *errs.Life) (*Cache, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if reason := checkSegment(name); reason != "" {
		return nil, errs.Invalid("service name %q: %s", name, reason)
	}
	p := d.pathForName(name)
	cc, err := cache.New(d.c, p, cache.WithDepth(1))
	if err != nil {
		return nil, err
	}
	ch := &Cache{d: d, name: name, path: p, cc: cc, errs: e, initCh: make(chan struct{}), doneCh: make(chan struct{}),
		instances: map[string]Instance{}}
	if !d.track(ch) {
		_ = cc.Close(context.Background()) // never started: no I/O
		return nil, errDiscoveryClosed
	}
	return ch, nil
}

// Name is the service the cache shows.
func (ch *Cache) Name() string {
	if ch == nil {
		return ""
	}
	return ch.name
}

// Start loads the cache and keeps it current until Close (Curator's
// start). It returns nil once the initial load is done; when ctx ends first
// it returns ctx's error and the load goes on in the background (Close stops
// it). Subscribers (Events) that came before Start see the load's
// Added events and Initialized.
//
// Start returns nil only if, when it returns, the load is done and neither
// the cache nor its client is closed: a close that happened before Start
// returns, even right after the load, makes it return an error wrapping
// zkrecipes.ErrClosed (the cache's own after Close, else the client's), whatever the
// order in which Start noticed the load and the close.
func (ch *Cache) Start(ctx context.Context) error {
	if ch == nil || ch.cc == nil {
		return errZeroCache()
	}
	ch.mu.Lock()
	switch ch.phase {
	case started:
		ch.mu.Unlock()
		return ch.errs.AlreadyStarted
	case closed:
		ch.mu.Unlock()
		return ch.errs.Closed
	}
	events, cancel := ch.cc.Events()
	ch.phase = started
	ch.wg.Add(1)
	go ch.pump(events, cancel)
	ch.mu.Unlock()
	// The cache's Start returns with its load (or ctx); the pump's
	// Initialized, which the select below waits for, follows it.
	if err := ch.cc.Start(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, zkrecipes.ErrClosed) {
		return err
	}
	select {
	case <-ch.initCh:
	case <-ch.doneCh:
	case <-ctx.Done():
	}
	// What happened decides, not which of the channels select picked: a
	// close wins over the load (the pump may have dropped Initialized, or
	// delivered it, when the client closed right after the load).
	switch {
	case ch.closedNow():
		return ch.closedErr()
	case pubsub.IsClosed(ch.initCh):
		return nil
	}
	return ctx.Err()
}

// closedNow reports whether the cache or its client is closed, or the pump
// is over.
func (ch *Cache) closedNow() bool {
	ch.mu.RLock()
	closed := ch.phase == closed
	ch.mu.RUnlock()
	return closed || pubsub.IsClosed(ch.doneCh) || clientClosed(ch.d.c)
}

// clientClosed reports whether c is closed: WaitSession says so at once
// (without waiting, its ctx being over already).
func clientClosed(c *client.Client) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.WaitSession(ctx)
	return errors.Is(err, zkrecipes.ErrClosed)
}

// closedErr is the error of a call on a cache whose pump is over (or never
// runs again): the cache's own when it was closed, else the client's (the
// pump ended with the client).
func (ch *Cache) closedErr() error {
	ch.mu.RLock()
	defer ch.mu.RUnlock()
	if ch.phase == closed {
		return ch.errs.Closed
	}
	return errs.ClientClosed
}

// Initialized returns a channel that is closed once the initial load is
// done.
func (ch *Cache) Initialized() <-chan struct{} {
	if ch == nil || ch.cc == nil {
		return nil
	}
	return ch.initCh
}

// Instances returns the instances in view, sorted by ID: never older than
// the last event delivered to any subscriber. Their Payload and URISpec are
// shared with the cache: do not modify them.
func (ch *Cache) Instances() []Instance {
	l, _ := ch.list()
	return l
}

// list is Instances with why there are none.
func (ch *Cache) list() ([]Instance, error) {
	if ch == nil || ch.cc == nil {
		return nil, errZeroCache()
	}
	gone := clientClosed(ch.d.c) // as Start: not only once the pump has seen it
	ch.mu.RLock()
	defer ch.mu.RUnlock()
	switch ch.phase {
	case idle:
		return nil, ch.errs.NotStarted
	case closed:
		return nil, ch.errs.Closed
	}
	if gone || pubsub.IsClosed(ch.doneCh) {
		return nil, errs.ClientClosed // the client closed
	}
	out := make([]Instance, 0, len(ch.instances))
	for _, inst := range ch.instances {
		out = append(out, inst)
	}
	sortInstances(out)
	return out, nil
}

// pump turns the node cache's events into instance events.
func (ch *Cache) pump(events <-chan cache.Event, cancel func()) {
	defer ch.wg.Done()
	// doneCh first, as in package cache, so that a subscriber that sees
	// its channel closed finds the cache done (zkrecipes.ErrClosed).
	defer ch.hub.Close()
	defer close(ch.doneCh)
	defer cancel()
	for ev := range events {
		ch.apply(ev)
	}
}

func (ch *Cache) apply(ev cache.Event) {
	if ev.Type == cache.Initialized {
		ch.mu.Lock()
		ch.publishLocked(Event{Type: Initialized})
		ch.mu.Unlock()
		ch.initOnce.Do(func() { close(ch.initCh) })
		return
	}
	node, ok := strings.CutPrefix(ev.Node.Path, ch.path+"/")
	if !ok || node == "" || strings.Contains(node, "/") {
		return // the service's own node
	}
	var inst Instance
	var err error
	if ev.Type != cache.Deleted {
		if inst, err = Unmarshal(ev.Node.Data); err != nil {
			ch.d.log.Warn("zkrecipes: discovery: leaving out a node that holds no service instance",
				"path", ev.Node.Path, "err", err)
		}
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	old, had := ch.instances[node]
	switch {
	case ev.Type == cache.Deleted || err != nil:
		if had {
			delete(ch.instances, node)
			ch.publishLocked(Event{Type: Removed, Instance: old, Node: node})
		}
	case had:
		ch.instances[node] = inst
		ch.publishLocked(Event{Type: Updated, Instance: inst, Node: node})
	default:
		ch.instances[node] = inst
		ch.publishLocked(Event{Type: Added, Instance: inst, Node: node})
	}
}

// Close stops the cache: its watches' notifications are ignored, every
// subscription's channel is closed and the view is emptied; its cache's
// persistent watch is removed from the server within ctx (see
// cache.Cache.Close). A second Close waits for the first to end and
// returns the same result.
func (ch *Cache) Close(ctx context.Context) error {
	if ch == nil || ch.cc == nil {
		return errZeroCache()
	}
	ch.closeOnce.Do(func() { ch.close(ctx) })
	return nil
}

// close is the first Close.
func (ch *Cache) close(ctx context.Context) {
	ch.mu.Lock()
	ch.phase = closed
	ch.mu.Unlock()
	_ = ch.cc.Close(ctx) // ends the pump, which stops the subscribers
	ch.hub.Close()
	ch.mu.Lock()
	ch.instances = map[string]Instance{}
	ch.mu.Unlock()
	ch.wg.Wait()
	ch.hub.Wait()
	ch.d.untrack(ch)
}

func errZeroCache() error { return errs.Invalid("zero or nil Cache: make one with Discovery.NewCache") }
