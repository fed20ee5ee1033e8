package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
)

// registration is one instance registered by a Discovery.
type registration struct {
	mu   sync.Mutex // held while its node is made, written or closed
	inst Instance
	node registrar
	gone bool // unregistered, closed, or its first create failed
}

// Register registers inst (Curator's registerService): its node
// base/name/id is created, with missing parents as containers, and kept
// until Unregister or Close, re-created with the latest data after a
// session loss or a deletion. Register returns once the node exists; when
// that fails (ctx ends, the client closes), nothing is left registered and
// the node, if it was made, is deleted. An empty ServiceType registers as
// Dynamic. An instance Validate refuses is an *InstanceError, before any
// I/O. Registering an id already registered here updates it (see Update).
func (d *Discovery) Register(ctx context.Context, inst Instance) error {
	inst, data, err := d.prepare(inst)
	if err != nil {
		return err
	}
	for {
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			return errDiscoveryClosed
		}
		r, had := d.regs[inst.ID]
		if had {
			d.mu.Unlock()
			r.mu.Lock()
		} else {
			r = &registration{}
			r.mu.Lock() // before anyone else can see r
			d.regs[inst.ID] = r
			d.mu.Unlock()
		}
		if r.gone {
			r.mu.Unlock() // unregistered while we waited for it: start again
			continue
		}
		if had {
			err := d.updateLocked(ctx, r, inst, data)
			r.mu.Unlock()
			return err
		}
		err := d.create(ctx, r, inst, data)
		r.mu.Unlock()
		return err
	}
}

// create makes r's node; on failure r is dropped and its node deleted.
func (d *Discovery) create(ctx context.Context, r *registration, inst Instance, data []byte) error {
	n, err := newRegistrar(d.c, d.pathForInstance(inst.Name, inst.ID), data, inst.ServiceType, d.log)
	if err == nil {
		err = n.Start(ctx)
	}
	if err != nil {
		r.gone = true
		d.mu.Lock()
		if d.regs[inst.ID] == r {
			delete(d.regs, inst.ID)
		}
		d.mu.Unlock()
		if n != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.c.SessionTimeout())
			_ = n.Close(cctx) // a delete left pending goes on in the background
			cancel()
		}
		return err
	}
	r.inst, r.node = inst, n
	return nil
}

// Update writes inst as the new data of its registered node (Curator's
// updateService); later re-creations use it too. When ctx ends before the
// write is done (no connection), Update returns ctx's error, and the data
// is still written once the connection is back. The node is the one
// registered with inst's ID: ErrNotRegistered (wrapped) when there is
// none; an *InstanceError when inst has another name or service type
// (unregister and register again to change those).
func (d *Discovery) Update(ctx context.Context, inst Instance) error {
	inst, data, err := d.prepare(inst)
	if err != nil {
		return err
	}
	r := d.registered(inst.ID)
	if r == nil {
		return fmt.Errorf("%w: id %q", ErrNotRegistered, inst.ID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone {
		return fmt.Errorf("%w: id %q", ErrNotRegistered, inst.ID)
	}
	return d.updateLocked(ctx, r, inst, data)
}

func (d *Discovery) updateLocked(ctx context.Context, r *registration, inst Instance, data []byte) error {
	switch {
	case inst.Name != r.inst.Name:
		return &InstanceError{Name: inst.Name, ID: inst.ID, Field: "name",
			Reason: fmt.Sprintf("id registered under service %q", r.inst.Name)}
	case inst.ServiceType != r.inst.ServiceType:
		return &InstanceError{Name: inst.Name, ID: inst.ID, Field: "serviceType",
			Reason: fmt.Sprintf("id registered as %s", r.inst.ServiceType)}
	}
	err := r.node.SetData(ctx, data)
	if !errors.Is(err, zkrecipes.ErrClosed) {
		r.inst = inst // kept for the node even when the write is still to come
	}
	return err
}

// Unregister removes the instance registered with inst's ID (Curator's
// unregisterService; only the ID is used): it is no longer kept, and its
// node is deleted with a guaranteed delete. When ctx ends before the
// delete is done, the error wraps zkrecipes.ErrDeletePending and the delete
// goes on in the background. An id not registered here: ErrNotRegistered
// (wrapped).
func (d *Discovery) Unregister(ctx context.Context, inst Instance) error {
	if err := d.usable(); err != nil {
		return err
	}
	d.mu.Lock()
	r := d.regs[inst.ID]
	delete(d.regs, inst.ID)
	d.mu.Unlock()
	if r == nil {
		return fmt.Errorf("%w: id %q", ErrNotRegistered, inst.ID)
	}
	return r.close(ctx)
}

// Registered returns the instances this Discovery keeps registered, sorted
// by ID, as last registered or updated.
func (d *Discovery) Registered() []Instance {
	if d == nil || d.c == nil {
		return nil
	}
	d.mu.Lock()
	regs := make([]*registration, 0, len(d.regs))
	for _, r := range d.regs {
		regs = append(regs, r)
	}
	d.mu.Unlock()
	var out []Instance
	for _, r := range regs {
		r.mu.Lock()
		if !r.gone && r.node != nil {
			out = append(out, r.inst)
		}
		r.mu.Unlock()
	}
	sortInstances(out)
	return out
}

func (d *Discovery) registered(id string) *registration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.regs[id]
}

// close stops keeping r's node and deletes it.
func (r *registration) close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone {
		return nil
	}
	r.gone = true
	if r.node == nil {
		return nil
	}
	return r.node.Close(ctx)
}

// prepare checks that d is usable, and returns inst as it is registered
// (an empty ServiceType is Dynamic) and its data (see encode).
func (d *Discovery) prepare(inst Instance) (Instance, []byte, error) {
	if err := d.usable(); err != nil {
		return inst, nil, err
	}
	if inst.ServiceType == "" {
		inst.ServiceType = Dynamic
	}
	data, err := d.encode(inst)
	return inst, data, err
}

// encode validates inst and writes it as this Discovery writes instances.
func (d *Discovery) encode(inst Instance) ([]byte, error) {
	if err := inst.Validate(); err != nil {
		return nil, err
	}
	if d.opt.enabledField {
		return MarshalFull(inst)
	}
	return Marshal(inst)
}
