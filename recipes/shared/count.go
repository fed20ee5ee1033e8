package shared

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
	"github.com/go-zkrecipes/zkrecipes/internal/option"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// Value is one reading of a count: the number and the node's stat at the
// write that made it.
type Value struct {
	// Count is the number.
	Count int32
	// Version is the node's data version; TrySet writes only while the node
	// still has it.
	Version int32
	// Mzxid is the zxid of the write that made this value. It grows with
	// every write, even across a delete and re-create of the node, so of two
	// Values the one with the larger Mzxid is the newer.
	Mzxid int64
}

// Option configures a Count.
type Option func(*options) error

type options struct{}

// lifecycle of a Count.
type phase int

const (
	idle phase = iota
	starting
	started
	closed
)

// Count is a shared int32 in one ZooKeeper node: see the package
// documentation. A Count is safe for concurrent use. A zero Count returns an
// error wrapping zkrecipes.ErrInvalidArgument from every method.
type Count struct {
	cl   *client.Client
	path string
	seed int32
	log  *slog.Logger

	stopCtx context.Context // cancelled by Close
	stop    context.CancelFunc
	wg      sync.WaitGroup // the watcher
	unsub   func()         // the watcher's state subscription

	mu       sync.Mutex
	phase    phase
	have     bool                            // val holds a reading
	val      Value                           // the newest reading
	valErr   error                           // what is wrong with val (bad data, node deleted, client closed), or nil
	chClosed bool                            // Events serves no one any more
	subs     map[*pubsub.Sub[Value]]struct{} // Events' queues
	subWG    sync.WaitGroup                  // their pumps
}

// NewCount returns a count at path (relative to the client's namespace) that
// Start creates with seed if the node is missing. It does no I/O.
func NewCount(c *client.Client, path string, seed int32, opts ...Option) (*Count, error) {
	if c == nil {
		return nil, errs.Invalid("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return nil, err
	}
	var o options
	if err := option.Apply("shared count "+path, &o, opts); err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Count{
		cl:      c,
		path:    path,
		seed:    seed,
		log:     access.RecipeLogger(c, "shared count", path),
		stopCtx: ctx,
		stop:    stop,
	}, nil
}

// Path returns the count's path, relative to the client's namespace.
func (c *Count) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// Start creates the node with the seed if it is missing, reads it and keeps
// watching it until Close. It returns once the first value is read. A Start
// that fails (ctx ended, bad data in the node, a ZooKeeper error) leaves
// nothing running and may be called again; the node it may have created
// stays, as a count should. A client that may read the node but not create
// it (the parent's ACL refuses it: zk.ErrNoAuth) starts all the same when
// the node is there, and can read the count; its writes are refused.
func (c *Count) Start(ctx context.Context) error {
	if c == nil || c.cl == nil {
		return errZero()
	}
	c.mu.Lock()
	switch c.phase {
	case closed:
		c.mu.Unlock()
		return c.errClosed()
	case starting, started:
		c.mu.Unlock()
		return fmt.Errorf("zkrecipes: count %s: %w", c.path, zkrecipes.ErrAlreadyStarted)
	}
	c.phase = starting
	c.mu.Unlock()

	// Close during Start ends Start's requests too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.stopCtx, cancel)()

	// Subscribe before the first read, so that no reconnect after it is missed.
	states, unsub := c.cl.Subscribe()
	w, err := c.first(ctx)

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase == closed {
		unsub()
		return c.errClosed()
	}
	if err != nil {
		unsub()
		c.phase = idle
		c.have, c.val, c.valErr = false, Value{}, nil
		return fmt.Errorf("zkrecipes: start count %s: %w", c.path, err)
	}
	c.phase = started
	c.unsub = unsub
	c.wg.Add(1)
	go c.watch(states, w)
	return nil
}

// first makes the node if it is missing and reads it with a data watch. It
// returns a *BadDataError if the data is not a count.
func (c *Count) first(ctx context.Context) (<-chan zk.Event, error) {
	for {
		_, createErr := c.cl.Create(ctx, c.path, encode(c.seed), zk.FlagPersistent, client.WithParents())
		// The server checks the parent's ACL before whether the node
		// exists: a reader that may not create learns only by reading.
		denied := errors.Is(createErr, zk.ErrNoAuth)
		if createErr != nil && !errors.Is(createErr, zk.ErrNodeExists) && !denied {
			return nil, createErr
		}
		data, st, w, err := c.cl.GetW(ctx, c.path)
		switch {
		case errors.Is(err, zk.ErrNoNode) && denied:
			return nil, createErr // missing, and this client may not make it
		case errors.Is(err, zk.ErrNoNode):
			continue // deleted between the create and the read: make it again
		}
		if err != nil {
			return nil, err
		}
		c.observe(data, st, false)
		c.mu.Lock()
		err = c.valErr
		c.mu.Unlock()
		return w, err
	}
}

// Get returns the newest value this count has read or written. It does no
// I/O. The error is zkrecipes.ErrNotStarted before Start, zkrecipes.ErrClosed after Close or
// once the client is closed, a *BadDataError when the node's data is not a
// count (the Value then has the node's Version and Mzxid, and Count 0), or
// wraps zk.ErrNoNode when the node was deleted (the Value is the last one
// read).
func (c *Count) Get() (Value, error) {
	if c == nil || c.cl == nil {
		return Value{}, errZero()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.phase {
	case closed:
		return Value{}, c.errClosed()
	case idle, starting:
		return Value{}, c.errNotStarted()
	}
	return c.val, c.valErr
}

// Set writes n whatever the node's version.
func (c *Count) Set(ctx context.Context, n int32) error {
	if err := c.usable(); err != nil {
		return err
	}
	data := encode(n)
	st, err := c.cl.Set(ctx, c.path, data, -1)
	if err != nil {
		return fmt.Errorf("zkrecipes: set count %s: %w", c.path, err)
	}
	c.observe(data, st, true)
	return nil
}

// TrySet writes n only if the node still has previous.Version, and reports
// whether it did. When someone else wrote first it returns false and a nil
// error, after reading the newer value, so Get returns it at once.
func (c *Count) TrySet(ctx context.Context, previous Value, n int32) (bool, error) {
	if err := c.usable(); err != nil {
		return false, err
	}
	data := encode(n)
	st, err := c.cl.Set(ctx, c.path, data, previous.Version)
	if errors.Is(err, zk.ErrBadVersion) {
		// As Curator's trySetCount: learn the newer value now. Should this
		// read fail, the watcher brings it in.
		if cur, cst, err := c.cl.Get(ctx, c.path); err == nil {
			c.observe(cur, cst, true)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("zkrecipes: try set count %s: %w", c.path, err)
	}
	c.observe(data, st, true)
	return true, nil
}

// Close stops watching the node and closes every Events channel (values
// not yet received are dropped). It does no I/O and does not delete the node.
// Afterwards every other method returns an error wrapping
// zkrecipes.ErrClosed; a second Close returns nil, as the first.
func (c *Count) Close() error {
	if c == nil || c.cl == nil {
		return errZero()
	}
	c.mu.Lock()
	if c.phase == closed {
		c.mu.Unlock()
		c.subWG.Wait()
		return nil
	}
	c.phase = closed
	unsub := c.unsub
	c.mu.Unlock()
	c.stop()
	if unsub != nil {
		unsub()
	}
	c.wg.Wait()
	c.mu.Lock()
	c.closeChangesLocked()
	c.mu.Unlock()
	c.subWG.Wait()
	return nil
}

// usable is nil once started and before Close.
func (c *Count) usable() error {
	if c == nil || c.cl == nil {
		return errZero()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.phase {
	case closed:
		return c.errClosed()
	case idle, starting:
		return c.errNotStarted()
	}
	return nil
}

// observe takes a reading (data and its stat) if it is newer than the one
// held, and sends it to Events' subscribers when it is a count and publish
// is set (the
// first reading, made by Start, is not a change).
func (c *Count) observe(data []byte, st *zk.Stat, publish bool) {
	if st == nil {
		return
	}
	v := Value{Version: st.Version, Mzxid: st.Mzxid}
	var bad error
	if n, ok := decode(data); ok {
		v.Count = n
	} else {
		bad = &BadDataError{Path: c.path, Data: append([]byte(nil), data...)}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.have && v.Mzxid <= c.val.Mzxid {
		return
	}
	c.have, c.val, c.valErr = true, v, bad
	if bad == nil && publish {
		c.sendLocked(v)
	}
}

// sendLocked queues v for every subscriber (c.mu is held).
func (c *Count) sendLocked(v Value) {
	if c.chClosed {
		return
	}
	for sub := range c.subs {
		sub.Push(v)
	}
}

// setErr records a problem with the held value that a read revealed.
func (c *Count) setErr(err error) {
	c.mu.Lock()
	c.valErr = err
	c.mu.Unlock()
}

// closeChangesLocked ends every subscription (c.mu is held).
func (c *Count) closeChangesLocked() {
	if !c.chClosed {
		c.chClosed = true
		for sub := range c.subs {
			sub.Stop()
		}
		c.subs = nil
	}
}

// Events returns a channel that receives every new value of the count from
// now on, in order, none dropped however slowly it is read (each
// subscriber has its own unbounded queue), and a function that ends the
// subscription and closes the channel. Values with bad data are not sent
// (Get reports them); the first reading, made by Start, is not a change.
// The channel is closed by Close, or when the client closes; after that,
// and for a zero Count, Events returns a closed channel. Cancelling twice
// is harmless.
func (c *Count) Events() (<-chan Value, func()) {
	if c == nil || c.cl == nil {
		return pubsub.Closed[Value](), func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chClosed {
		return pubsub.Closed[Value](), func() {}
	}
	sub := pubsub.New[Value]()
	if c.subs == nil {
		c.subs = make(map[*pubsub.Sub[Value]]struct{})
	}
	c.subs[sub] = struct{}{}
	c.subWG.Add(1)
	go func() {
		defer c.subWG.Done()
		sub.Run()
	}()
	return sub.Out(), func() {
		c.mu.Lock()
		delete(c.subs, sub)
		c.mu.Unlock()
		sub.Stop()
	}
}

func (c *Count) errClosed() error {
	return fmt.Errorf("zkrecipes: count %s: %w", c.path, errCountClosed)
}

func (c *Count) errNotStarted() error {
	return fmt.Errorf("zkrecipes: count %s: %w", c.path, errCountNotStarted)
}

// encode is Curator's SharedCount encoding: 4 bytes, big-endian.
func encode(n int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(n))
}

// decode reads a count, reporting whether data is one.
func decode(data []byte) (int32, bool) {
	if len(data) != 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(data)), true
}
