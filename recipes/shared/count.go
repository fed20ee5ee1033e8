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
	"github.com/go-zkrecipes/zkrecipes/internal/option"
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
	have     bool  // val holds a reading
	val      Value // the newest reading
	valErr   error // what is wrong with val (bad data, node deleted, client closed), or nil
	changes  chan Value
	chClosed bool
	subs     map[chan Value]struct{} // Subscribe's channels
}

// NewCount returns a count at path (relative to the client's namespace) that
// Start creates with seed if the node is missing. It does no I/O.
func NewCount(c *client.Client, path string, seed int32, opts ...Option) (*Count, error) {
	if c == nil {
		return nil, invalidArg("nil client")
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
		changes: make(chan Value, 1),
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

// Changes returns the channel of new values: every value that replaces the
// one held is sent, but the channel holds only one, and a newer value
// replaces an unread older one, so the last value received is always the
// newest. Values with bad data are not sent (Get reports them). The channel
// is closed by Close, or when the client closes; a value sent before that
// can still be received first. It is the same channel on every call.
func (c *Count) Changes() <-chan Value {
	if c == nil || c.cl == nil {
		ch := make(chan Value)
		close(ch)
		return ch
	}
	return c.changes
}

// Close stops watching the node and closes the Changes channel. It does not
// delete the node. It is idempotent; afterwards every other method returns
// an error wrapping zkrecipes.ErrClosed.
func (c *Count) Close() error {
	if c == nil || c.cl == nil {
		return errZero()
	}
	c.mu.Lock()
	if c.phase == closed {
		c.mu.Unlock()
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
// held, and sends it on Changes when it is a count and publish is set (the
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

// sendLocked puts v in the one-slot Changes channel, replacing an unread
// older value. Every sender holds c.mu, so after the drain the slot is free
// and the send cannot block.
func (c *Count) sendLocked(v Value) {
	if c.chClosed {
		return
	}
	offer(c.changes, v)
	for ch := range c.subs {
		offer(ch, v)
	}
}

// offer puts v in a one-slot channel whose only sender holds c.mu,
// replacing an unread older value, without ever blocking.
func offer(ch chan Value, v Value) {
	select {
	case ch <- v:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	ch <- v
}

// setErr records a problem with the held value that a read revealed.
func (c *Count) setErr(err error) {
	c.mu.Lock()
	c.valErr = err
	c.mu.Unlock()
}

func (c *Count) closeChangesLocked() {
	if !c.chClosed {
		c.chClosed = true
		close(c.changes)
		for ch := range c.subs {
			close(ch)
		}
		c.subs = nil
	}
}

// Subscribe returns a channel of new values of its own, as Changes
// delivers them (one slot, the newest value replaces an unread older one),
// and a function that ends the subscription and closes the channel. Unlike
// Changes, any number of readers can each subscribe and each sees every
// latest value. The channel is also closed by Close, or when the client
// closes; after that Subscribe returns a closed channel. Cancelling twice
// is harmless.
func (c *Count) Subscribe() (<-chan Value, func()) {
	ch := make(chan Value, 1)
	if c == nil || c.cl == nil {
		close(ch)
		return ch, func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chClosed {
		close(ch)
		return ch, func() {}
	}
	if c.subs == nil {
		c.subs = make(map[chan Value]struct{})
	}
	c.subs[ch] = struct{}{}
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.subs[ch]; ok {
			delete(c.subs, ch)
			close(ch)
		}
	}
}

func (c *Count) errClosed() error {
	return fmt.Errorf("zkrecipes: count %s is closed: %w", c.path, zkrecipes.ErrClosed)
}

func (c *Count) errNotStarted() error {
	return fmt.Errorf("zkrecipes: count %s is not started: %w", c.path, zkrecipes.ErrNotStarted)
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
