package discovery

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
)

// Discovery registers service instances under a base path and queries
// them, as Curator's ServiceDiscovery: instance id of service name lives at
// base/name/id. It is safe for concurrent use. A zero Discovery returns an
// error wrapping zkrecipes.ErrInvalidArgument from every method that returns an
// error.
type Discovery struct {
	c    *client.Client
	base string
	opt  options
	log  *slog.Logger

	closeOnce   sync.Once
	closeResult error // the first Close's

	mu     sync.Mutex
	closed bool
	regs   map[string]*registration // by instance id
	caches map[*Cache]struct{}      // caches and providers' caches made here, until closed
}

// New returns a Discovery of the instances under basePath (relative to the
// client's namespace; Curator's basePath). It does no I/O.
func New(c *client.Client, basePath string, opts ...Option) (*Discovery, error) {
	if c == nil {
		return nil, errs.Invalid("nil client")
	}
	if err := client.ValidatePath(basePath); err != nil {
		return nil, err
	}
	var o options
	if err := option.Apply("service discovery "+basePath, &o, opts); err != nil {
		return nil, err
	}
	return &Discovery{
		c:      c,
		base:   basePath,
		opt:    o,
		log:    access.RecipeLogger(c, "discovery", basePath),
		regs:   map[string]*registration{},
		caches: map[*Cache]struct{}{},
	}, nil
}

// BasePath is the Discovery's base path, relative to the client's
// namespace.
func (d *Discovery) BasePath() string {
	if d == nil {
		return ""
	}
	return d.base
}

// pathForName is base/name.
func (d *Discovery) pathForName(name string) string {
	if d.base == "/" {
		return "/" + name
	}
	return d.base + "/" + name
}

// pathForInstance is base/name/id.
func (d *Discovery) pathForInstance(name, id string) string { return d.pathForName(name) + "/" + id }

// usable is nil, or why d cannot be used.
func (d *Discovery) usable() error {
	if d == nil || d.c == nil {
		return errs.Invalid("zero or nil Discovery: make one with New")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errDiscoveryClosed
	}
	return nil
}

// Close closes the caches and providers made by this Discovery and
// unregisters every instance it registered (Curator's close), each with a
// guaranteed delete: when ctx ends first the error wraps
// zkrecipes.ErrDeletePending and the deletes go on in the background. Every
// later call returns zkrecipes.ErrClosed. A second Close waits for the
// first to end and returns the same result.
func (d *Discovery) Close(ctx context.Context) error {
	if d == nil || d.c == nil {
		return errs.Invalid("zero or nil Discovery: make one with New")
	}
	d.closeOnce.Do(func() { d.closeResult = d.close(ctx) })
	return d.closeResult
}

// close is the first Close.
func (d *Discovery) close(ctx context.Context) error {
	d.mu.Lock()
	d.closed = true
	regs := d.regs
	d.regs = map[string]*registration{}
	caches := d.caches
	d.caches = map[*Cache]struct{}{}
	d.mu.Unlock()
	for ch := range caches {
		_ = ch.Close(ctx)
	}
	var errs []error
	for _, r := range regs {
		errs = append(errs, r.close(ctx))
	}
	return errors.Join(errs...)
}

// track remembers a cache until it closes; false once d is closed.
func (d *Discovery) track(ch *Cache) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.caches[ch] = struct{}{}
	return true
}

func (d *Discovery) untrack(ch *Cache) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.caches, ch)
}
