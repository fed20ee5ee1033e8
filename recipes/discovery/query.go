package discovery

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zookeeper/zk"
)

// QueryForNames returns the names of the services under the base path,
// sorted (none when the base path does not exist).
func (d *Discovery) QueryForNames(ctx context.Context) ([]string, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	names, _, err := d.c.Children(ctx, d.base)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// QueryForInstances returns the instances of service name, sorted by ID
// (none when the service has none). A node whose data is no instance is
// left out and logged, as is one deleted while it was read.
func (d *Discovery) QueryForInstances(ctx context.Context, name string) ([]Instance, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if reason := checkSegment(name); reason != "" {
		return nil, errs.Invalid("service name %q: %s", name, reason)
	}
	dir := d.pathForName(name)
	kids, _, err := d.c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Instance, 0, len(kids))
	for _, k := range kids {
		inst, err := d.read(ctx, dir+"/"+k)
		switch {
		case err == nil:
			out = append(out, inst)
		case errors.Is(err, ErrNotFound):
		case errors.Is(err, ErrBadData):
			d.log.Warn("zkrecipes: discovery: skipping a node that holds no service instance", "err", err)
		default:
			return nil, err
		}
	}
	sortInstances(out)
	return out, nil
}

// QueryForInstance returns instance id of service name, read from its node
// base/name/id: ErrNotFound when there is none, a *DataError when the node
// holds something else. A DynamicSequential instance's node is not named
// by its id alone, so, as in Curator, only QueryForInstances finds it.
func (d *Discovery) QueryForInstance(ctx context.Context, name, id string) (Instance, error) {
	if err := d.usable(); err != nil {
		return Instance{}, err
	}
	if reason := checkSegment(name); reason != "" {
		return Instance{}, errs.Invalid("service name %q: %s", name, reason)
	}
	if reason := checkSegment(id); reason != "" {
		return Instance{}, errs.Invalid("instance id %q: %s", id, reason)
	}
	return d.read(ctx, d.pathForInstance(name, id))
}

func (d *Discovery) read(ctx context.Context, p string) (Instance, error) {
	data, _, err := d.c.Get(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return Instance{}, ErrNotFound
	}
	if err != nil {
		return Instance{}, err
	}
	inst, err := Unmarshal(data)
	if err != nil {
		var de *DataError
		if errors.As(err, &de) {
			de.Path = p
		}
		return Instance{}, err
	}
	return inst, nil
}

// sortInstances orders instances by ID, then by name.
func sortInstances(l []Instance) {
	slices.SortFunc(l, func(a, b Instance) int {
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
