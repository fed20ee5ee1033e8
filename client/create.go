package client

import (
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// A CreateOption changes how Create and CreateProtected make a node.
type CreateOption func(*createOptions) error

type createOptions struct {
	parents bool
	ttl     time.Duration
}

// WithParents makes Create first make any missing ancestor as a container
// node, which the server deletes again once it has had children and has
// none left. As with any Create, a call abandoned because ctx ended may
// still create the node (and its parents) afterwards. CreateProtected
// always makes them.
func WithParents() CreateOption {
	return func(o *createOptions) error {
		o.parents = true
		return nil
	}
}

// WithTTL makes a TTL node: a persistent node that the server deletes once
// it has no children and its data was last written (or the node created)
// more than ttl ago. The server checks at its container reaping interval
// (znode.container.checkIntervalMs, 60 s by default), so such a node goes
// between ttl and about ttl plus that interval after its last write. The
// flags must be zk.FlagTTL or zk.FlagPersistentSequentialWithTTL; ttl is a
// whole number of milliseconds from 1 ms to MaxTTL (it is truncated to
// milliseconds).
//
// The server must allow TTL nodes (ZooKeeper 3.5.3 or later, started with
// -Dzookeeper.extendedTypesEnabled=true); one that does not answers
// zk.ErrUnimplemented.
func WithTTL(ttl time.Duration) CreateOption {
	return func(o *createOptions) error {
		if ttl < time.Millisecond {
			return errs.Invalid("TTL %v: want at least 1ms", ttl)
		}
		if ttl > MaxTTL {
			return errs.Invalid("TTL %v: longer than ZooKeeper's maximum %v", ttl, MaxTTL)
		}
		o.ttl = ttl
		return nil
	}
}

// createOpts applies opts; a nil option is an invalid argument.
func createOpts(opts []CreateOption) (createOptions, error) {
	var o createOptions
	for _, opt := range opts {
		if opt == nil {
			return o, errs.Invalid("nil create option")
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}
