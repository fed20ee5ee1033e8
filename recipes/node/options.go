package node

import (
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/enum"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
)

// Mode is the kind of node a Node keeps, as ZooKeeper's CreateMode names it.
type Mode int

const (
	// Ephemeral (the default) is a node that lives as long as the session
	// that made it: a Node makes it again in each new session.
	Ephemeral Mode = iota
	// EphemeralSequential is Ephemeral with ZooKeeper's 10-digit sequence
	// number appended to the name at the first create. It needs
	// WithProtection.
	EphemeralSequential
	// Persistent is a node that outlives its session; with WithTTL, a TTL
	// node.
	Persistent
	// PersistentSequential is Persistent with a sequence number. It needs
	// WithProtection.
	PersistentSequential
)

// String is the mode's name, as ZooKeeper spells it ("EPHEMERAL", ...).
func (m Mode) String() string {
	return enum.Name(m, Ephemeral, "Mode", "EPHEMERAL", "EPHEMERAL_SEQUENTIAL", "PERSISTENT", "PERSISTENT_SEQUENTIAL")
}

func (m Mode) valid() bool      { return m >= Ephemeral && m <= PersistentSequential }
func (m Mode) ephemeral() bool  { return m == Ephemeral || m == EphemeralSequential }
func (m Mode) sequential() bool { return m == EphemeralSequential || m == PersistentSequential }

// TouchName is the name of the child a TTL node's handle keeps touching
// (Curator's PersistentTtlNode.DEFAULT_CHILD_NODE_NAME).
const TouchName = "touch"

// Option configures a Node.
type Option func(*options) error

type options struct {
	mode    Mode
	modeSet bool
	protect bool
	ttl     time.Duration
	ttlSet  bool
}

// WithMode sets the node's mode (default Ephemeral).
func WithMode(m Mode) Option {
	return func(o *options) error {
		if !m.valid() {
			return errs.Invalid("unknown mode %d", int(m))
		}
		o.mode, o.modeSet = m, true
		return nil
	}
}

// WithProtection makes every create a protected one
// (client.CreateProtected): the node is named "_c_" + a UUID + "-" + the
// path's last segment, so that a create whose reply was lost is found
// again instead of being made twice. Each create has a new UUID: the path
// changes when the node is made again (Path follows).
func WithProtection() Option {
	return func(o *options) error {
		o.protect = true
		return nil
	}
}

// WithTTL makes the node a TTL node (Curator's PersistentTtlNode): a
// persistent node the server deletes once it has had no children and no
// data write for d. The handle keeps it alive as Curator does, with a child
// named TouchName that it writes (or makes, itself a TTL node) every d/2,
// so that the node's own data and watchers are untouched; once the handle
// stops (its process died, or is cut off), the child expires after d and
// the node after it. The mode must be Persistent (the default with WithTTL)
// or PersistentSequential; d is at least 1 ms and at most client.MaxTTL.
// The server must allow TTL nodes (zookeeper.extendedTypesEnabled=true).
func WithTTL(d time.Duration) Option {
	return func(o *options) error {
		if d < time.Millisecond || d > client.MaxTTL {
			return errs.Invalid("TTL %v: want 1ms to %v", d, client.MaxTTL)
		}
		o.ttl, o.ttlSet = d, true
		return nil
	}
}

// apply applies opts and checks that they fit together.
func apply(given []Option) (options, error) {
	var o options
	if err := option.Apply("persistent node", &o, given); err != nil {
		return options{}, err
	}
	if o.ttlSet {
		if !o.modeSet {
			o.mode = Persistent
		}
		if o.mode.ephemeral() {
			return options{}, errs.Invalid("a TTL node is persistent: mode %v cannot have a TTL", o.mode)
		}
	}
	if o.mode.sequential() && !o.protect {
		return options{}, errs.Invalid("mode %v needs WithProtection: an unprotected sequential create whose reply is lost cannot be found again and would leave a second node", o.mode)
	}
	return o, nil
}

// flags are go-zookeeper's create flags for the node's first create.
func (o options) flags() int32 {
	switch {
	case o.mode == Ephemeral:
		return zk.FlagEphemeral
	case o.mode == EphemeralSequential:
		return zk.FlagEphemeralSequential
	case o.mode == Persistent && o.ttlSet:
		return zk.FlagTTL
	case o.mode == PersistentSequential && o.ttlSet:
		return zk.FlagPersistentSequentialWithTTL
	case o.mode == PersistentSequential:
		return zk.FlagSequence
	}
	return zk.FlagPersistent
}

// again is flags without the sequence: a sequential node is made again
// under the name it got first (as Curator does), not with a new number.
func again(flags int32) int32 {
	switch flags {
	case zk.FlagEphemeralSequential:
		return zk.FlagEphemeral
	case zk.FlagSequence:
		return zk.FlagPersistent
	case zk.FlagPersistentSequentialWithTTL:
		return zk.FlagTTL
	}
	return flags
}
