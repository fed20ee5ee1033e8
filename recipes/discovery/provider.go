package discovery

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
)

// Provider hands out instances of one service from a cached view, by a
// strategy (Curator's ServiceProvider): GetInstance for one use,
// GetAllInstances for all. It leaves out disabled instances, those a
// filter refuses, and those reported down with NoteError. It is safe for
// concurrent use. A zero Provider returns an error wrapping
// zkrecipes.ErrInvalidArgument from every method that returns an error.
type Provider struct {
	cache    *Cache
	strategy Strategy
	filters  []func(Instance) bool
	down     *downInstances
}

// NewProvider returns a provider of service name's instances (Curator's
// serviceProviderBuilder): RoundRobin unless WithStrategy says otherwise,
// DefaultDownInstancePolicy unless WithDownInstancePolicy does. It does no
// I/O: Start loads its view.
func (d *Discovery) NewProvider(name string, opts ...ProviderOption) (*Provider, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	o := providerOptions{down: DefaultDownInstancePolicy}
	if err := option.Apply("service provider "+name, &o, opts); err != nil {
		return nil, err
	}
	if o.strategy == nil {
		o.strategy = RoundRobin()
	}
	ch, err := d.newCache(name, providerErrors)
	if err != nil {
		return nil, err
	}
	return &Provider{cache: ch, strategy: o.strategy, filters: o.filters, down: newDownInstances(o.down)}, nil
}

// Name is the service the provider hands out.
func (p *Provider) Name() string {
	if p == nil {
		return ""
	}
	return p.cache.Name()
}

// Start loads the provider's view and keeps it current until Close, as
// Cache.Start: it returns once the initial load is done, or with ctx's
// error (the load goes on).
func (p *Provider) Start(ctx context.Context) error {
	if p == nil || p.cache == nil {
		return errZeroProvider()
	}
	return p.cache.Start(ctx)
}

// GetInstance returns an instance for a single use, picked by the
// strategy among GetAllInstances: ErrNoInstances when there is none. Do
// not keep it: ask again for each use, so that changes and NoteError
// count.
func (p *Provider) GetInstance() (Instance, error) {
	all, err := p.GetAllInstances()
	if err != nil {
		return Instance{}, err
	}
	inst, ok := p.strategy.Pick(all)
	if !ok {
		return Instance{}, ErrNoInstances
	}
	return inst, nil
}

// GetAllInstances returns the instances in view that are enabled, pass
// every filter and are not down, sorted by ID. It does no I/O; before
// Start it returns zkrecipes.ErrNotStarted, after Close zkrecipes.ErrClosed.
func (p *Provider) GetAllInstances() ([]Instance, error) {
	if p == nil || p.cache == nil {
		return nil, errZeroProvider()
	}
	all, err := p.cache.list()
	if err != nil {
		return nil, err
	}
	out := all[:0]
next:
	for _, inst := range all {
		for _, keep := range p.filters {
			if !keep(inst) {
				continue next
			}
		}
		if p.down.up(inst) && inst.Enabled() {
			out = append(out, inst)
		}
	}
	return out, nil
}

// NoteError reports that inst failed a call (Curator's noteError): once
// the down-instance policy's threshold of errors is reached, inst is left
// out until the policy's timeout has passed since the first error. An
// instance counts as the same one only while all its fields are equal.
func (p *Provider) NoteError(inst Instance) {
	if p == nil || p.down == nil {
		return
	}
	p.down.add(inst)
}

// Close stops the provider's view (Curator's close), removing its watch
// from the server within ctx (see Cache.Close). A second Close waits for
// the first to end and returns the same result.
func (p *Provider) Close(ctx context.Context) error {
	if p == nil || p.cache == nil {
		return errZeroProvider()
	}
	return p.cache.Close(ctx)
}

func errZeroProvider() error {
	return errs.Invalid("zero or nil Provider: make one with Discovery.NewProvider")
}
