package counter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// Counter is Curator's DistributedAtomicLong: an int64 in one ZooKeeper
// node, updated by compare-and-set (see the package documentation). A
// Counter is safe for concurrent use; its updates run one at a time. A zero
// Counter returns an error wrapping zkrecipes.ErrInvalidArgument from every method.
type Counter struct {
	cl     *client.Client
	path   string
	full   string // path under the client's namespace: the conditional writes go to the connection itself
	policy retry.Policy

	lock        *mutex.Mutex // nil: no promotion
	lockPolicy  retry.Policy // nil: one try under the lock
	lockTimeout time.Duration

	gate chan struct{} // one slot, held by the update under way

	mu   sync.Mutex
	seen reading // the last reading this handle made or wrote
	// readFirst is set while the remembered version keeps turning out old
	// (other writers write between this handle's updates): updates then
	// read before they write, as Curator's do, rather than waste a write.
	// It is cleared when a read finds the remembered version still there.
	readFirst bool
}

// reading is one look at the node: what it held at which version.
type reading struct {
	known   bool  // a reading is held
	exists  bool  // the node exists
	value   int64 // its value (0 when missing)
	version int32 // its data version (-1 when missing)
}

// New returns a counter at path (relative to the client's namespace). It
// does no I/O: the node is made by the first write (ForceSet, Initialize,
// an update), with missing parents as container nodes, as in Curator.
func New(c *client.Client, path string, opts ...Option) (*Counter, error) {
	if c == nil {
		return nil, errs.Invalid("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return nil, err
	}
	var o options
	if err := option.Apply("counter "+path, &o, opts); err != nil {
		return nil, err
	}
	if o.policy == nil {
		o.policy = access.RetryPolicy(c)
	}
	ct := &Counter{cl: c, path: path, full: access.Full(c, path), policy: o.policy,
		gate: make(chan struct{}, 1)}
	if o.lock != nil {
		m, err := mutex.New(c, o.lock.Path)
		if err != nil {
			return nil, err
		}
		ct.lock, ct.lockPolicy, ct.lockTimeout = m, o.lock.RetryPolicy, o.lock.Timeout
	}
	return ct, nil
}

// Path returns the counter's path, relative to the client's namespace.
func (c *Counter) Path() string {
	if c.zero() {
		return ""
	}
	return c.path
}

func (c *Counter) zero() bool { return c == nil || c.cl == nil || c.gate == nil }

// Get reads the counter: PreValue and PostValue are its value (0 when the
// node is missing or empty, as in Curator), Version the node's version (-1
// when missing). A node whose data is no counter gives a *BadDataError.
func (c *Counter) Get(ctx context.Context) (Result, error) {
	if c.zero() {
		return Result{Version: -1}, errZero()
	}
	r, err := c.read(ctx)
	switch {
	case errors.Is(err, ErrBadData):
		return Result{Version: r.version}, err
	case err != nil:
		return Result{Version: -1}, c.wrap("get", err)
	}
	return Result{Succeeded: true, PreValue: r.value, PostValue: r.value, Version: r.version}, nil
}

// ForceSet writes n whatever the node holds, creating the node (and its
// parents) when it is missing: Curator's forceSet, with no atomicity. A
// ForceSet that fails for another reason than a server's refusal returns a
// *MaybeAppliedError (Version -1): n may have been written.
func (c *Counter) ForceSet(ctx context.Context, n int64) error {
	if c.zero() {
		return errZero()
	}
	if err := c.usable(ctx); err != nil {
		return c.wrap("force set", err)
	}
	data := encode(n)
	st, err := c.cl.Set(ctx, c.path, data, -1)
	if errors.Is(err, zk.ErrNoNode) {
		_, err = c.cl.Create(ctx, c.path, data, zk.FlagPersistent, client.WithParents())
		if err == nil {
			st = &zk.Stat{Version: 0}
		} else if errors.Is(err, zk.ErrNodeExists) {
			st, err = c.cl.Set(ctx, c.path, data, -1)
		}
	}
	if err != nil {
		c.forget()
		return c.failed("force set", n, -1, err)
	}
	c.remember(reading{known: true, exists: true, value: n, version: st.Version})
	return nil
}

// Initialize creates the node holding n if it is missing, and reports
// whether this call created it: Curator's initialize. The node is never
// changed when it exists, whatever it holds. As with client.Create, a
// create whose reply was lost is retried and may then find the node it
// made itself: Initialize then reports false, and the node holds n either
// way. A call that ended without an answer returns a *MaybeAppliedError
// (Version -1).
func (c *Counter) Initialize(ctx context.Context, n int64) (bool, error) {
	if c.zero() {
		return false, errZero()
	}
	if err := c.usable(ctx); err != nil {
		return false, c.wrap("initialize", err)
	}
	_, err := c.cl.Create(ctx, c.path, encode(n), zk.FlagPersistent, client.WithParents())
	switch {
	case err == nil:
		c.remember(reading{known: true, exists: true, value: n, version: 0})
		return true, nil
	case errors.Is(err, zk.ErrNodeExists):
		return false, nil
	}
	c.forget()
	return false, c.failed("initialize", n, -1, err)
}

// usable is the error of a write that cannot be sent (ctx is over, the
// client is closed or not started): a definite failure, before any I/O.
// It waits for a connection, as the client's own operations would.
func (c *Counter) usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := c.cl.Conn(ctx)
	return err
}

// failed is the error of a write made through the client (which retries
// it): a server's refusal as it is, anything else a *MaybeAppliedError.
func (c *Counter) failed(what string, n int64, version int32, err error) error {
	if refused(err) {
		return c.wrap(what, err)
	}
	return &MaybeAppliedError{Path: c.path, Version: version, Value: n, Err: c.closedCause(err)}
}

// refused reports whether err is the server's (or the client's own)
// definite refusal of a write: the write was not applied.
func refused(err error) bool {
	for _, e := range []error{zk.ErrNoNode, zk.ErrNodeExists, zk.ErrBadVersion, zk.ErrNoAuth, zk.ErrInvalidACL,
		zk.ErrBadArguments, zk.ErrInvalidPath, zk.ErrNoChildrenForEphemerals, zk.ErrSessionExpired,
		zk.ErrAuthFailed, zkrecipes.ErrInvalidArgument, zkrecipes.ErrInvalidPath, zkrecipes.ErrNotStarted} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// read reads the node and remembers what it found. Data that is no counter
// gives a *BadDataError and the node's version.
func (c *Counter) read(ctx context.Context) (reading, error) {
	data, st, err := c.cl.Get(ctx, c.path)
	if errors.Is(err, zk.ErrNoNode) {
		r := reading{known: true, version: -1}
		c.remember(r)
		return r, nil
	}
	if err != nil {
		return reading{}, err
	}
	n, ok := decode(data)
	if !ok {
		c.forget()
		return reading{version: st.Version}, &BadDataError{Path: c.path, Data: data}
	}
	r := reading{known: true, exists: true, value: n, version: st.Version}
	c.remember(r)
	return r, nil
}

func (c *Counter) remember(r reading) {
	c.mu.Lock()
	c.seen = r
	c.mu.Unlock()
}

func (c *Counter) forget() { c.remember(reading{}) }

// recall returns the remembered reading and whether updates should read
// first all the same.
func (c *Counter) recall() (reading, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen, c.readFirst
}

// trust sets whether updates may write over the remembered version.
func (c *Counter) trust(ok bool) {
	c.mu.Lock()
	c.readFirst = !ok
	c.mu.Unlock()
}

func (c *Counter) wrap(what string, err error) error {
	return fmt.Errorf("zkrecipes: counter %s: %s: %w", c.path, what, err)
}
