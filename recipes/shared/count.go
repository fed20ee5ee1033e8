package shared

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
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

// Option configures a Count or a Bytes.
type Option func(*options) error

type options struct{}

// lifecycle of a Count or a Bytes.
type phase int

const (
	idle phase = iota
	starting
	started
	closed
)

// countWhat names a Count in errors and logs.
const countWhat = "count"

// Count is a shared int32 in one ZooKeeper node: see the package
// documentation. It stands on a Bytes whose data is the number's 4 bytes.
// A Count is safe for concurrent use. A zero Count returns an error
// wrapping zkrecipes.ErrInvalidArgument from every method.
type Count struct {
	cl   *client.Client
	path string
	seed int32

	mu       sync.Mutex
	phase    phase
	b        *Bytes                          // the value underneath, from Start on
	chClosed bool                            // Events serves no one any more
	subs     map[*pubsub.Sub[Value]]struct{} // Events' queues
	subWG    sync.WaitGroup                  // their pumps
	pumpWG   sync.WaitGroup                  // the goroutine that turns b's events into counts
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
	return &Count{cl: c, path: path, seed: seed}, nil
}

func (c *Count) valid() bool { return c != nil && c.cl != nil }

// Path returns the count's path, relative to the client's namespace.
func (c *Count) Path() string {
	if !c.valid() {
		return ""
	}
	return c.path
}

// Start creates the node with the seed if it is missing, reads it and keeps
// watching it until Close. It returns once the first value is read, or when
// ctx ends: then the count goes on starting in the background until Close
// (Get says zkrecipes.ErrNotStarted until it has read the node, and a
// *BadDataError if what it read is not a count). A Start that fails
// otherwise (bad data in the node, an error that will not pass by trying
// again) leaves nothing running and may be called again; the node it may
// have created stays, as a count should. A client that may read the node
// but not create it (the parent's ACL refuses it: zk.ErrNoAuth) starts all
// the same when the node is there, and can read the count; its writes are
// refused. zkrecipes.ErrAlreadyStarted on a second Start,
// zkrecipes.ErrClosed after Close.
func (c *Count) Start(ctx context.Context) error {
	if !c.valid() {
		return errZero()
	}
	if ctx == nil {
		return errs.Invalid("nil context")
	}
	c.mu.Lock()
	switch c.phase {
	case closed:
		c.mu.Unlock()
		return c.errClosed()
	case starting, started:
		c.mu.Unlock()
		return fmt.Errorf("zkrecipes: count %s: %w", c.path, countLife.AlreadyStarted)
	}
	b, err := newBytes(c.cl, c.path, encode(c.seed), countWhat, nil)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	c.b, c.phase = b, starting
	// Subscribe before the first read: no change after it is missed.
	src, _ := b.Events()
	c.pumpWG.Add(1)
	go c.pump(b, src)
	c.mu.Unlock()

	err = b.Start(ctx)
	if c.closed() {
		return c.errClosed()
	}
	if err == nil {
		if _, err = c.Get(); errors.As(err, new(*BadDataError)) {
			c.discard(b)
			return fmt.Errorf("zkrecipes: start count %s: %w", c.path, err)
		}
		c.setPhase(started)
		return nil
	}
	if ctx.Err() != nil && !errors.Is(err, zkrecipes.ErrClosed) {
		c.setPhase(started) // it goes on starting in the background
		return err
	}
	c.discard(b)
	return err
}

func (c *Count) closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.phase == closed
}

func (c *Count) setPhase(p phase) {
	c.mu.Lock()
	if c.phase != closed {
		c.phase = p
	}
	c.mu.Unlock()
}

// discard closes a Bytes that a failed Start made, leaving the count not
// started (its subscriptions stay open for the next Start).
func (c *Count) discard(b *Bytes) {
	c.mu.Lock()
	if c.b == b {
		c.b = nil
		if c.phase != closed {
			c.phase = idle
		}
	}
	c.mu.Unlock()
	_ = b.Close()
}

// pump turns b's values into counts for Events' subscribers, until b's
// events end; then, unless a failed Start discarded b, it ends theirs.
func (c *Count) pump(b *Bytes, src <-chan Versioned) {
	defer c.pumpWG.Done()
	for v := range src {
		n, ok := decode(v.Data)
		if !ok {
			continue // Get reports it
		}
		c.mu.Lock()
		if !c.chClosed {
			for sub := range c.subs {
				sub.Push(Value{Count: n, Version: v.Version, Mzxid: v.Mzxid})
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	if c.b == b {
		c.closeChangesLocked()
	}
	c.mu.Unlock()
}

// bytes is the Bytes underneath once started, or the count's error.
func (c *Count) bytes() (*Bytes, error) {
	if !c.valid() {
		return nil, errZero()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.phase == closed:
		return nil, c.errClosed()
	case c.b == nil:
		return nil, c.errNotStarted()
	}
	return c.b, nil
}

// Get returns the newest value this count has read or written. It does no
// I/O. The error is zkrecipes.ErrNotStarted before Start has read the node,
// zkrecipes.ErrClosed after Close or once the client is closed, a
// *BadDataError when the node's data is not a count (the Value then has
// the node's Version and Mzxid, and Count 0), or wraps zk.ErrNoNode when
// the node was deleted (the Value is the last one read).
func (c *Count) Get() (Value, error) {
	b, err := c.bytes()
	if err != nil {
		return Value{}, err
	}
	v, err := b.Get()
	if errors.Is(err, zkrecipes.ErrNotStarted) {
		return Value{}, c.errNotStarted()
	}
	if v.Mzxid == 0 && err != nil {
		return Value{}, err
	}
	out := Value{Version: v.Version, Mzxid: v.Mzxid}
	n, ok := decode(v.Data)
	if !ok {
		return out, &BadDataError{Path: c.path, Data: v.Data}
	}
	out.Count = n
	return out, err
}

// Set writes n whatever the node's version.
func (c *Count) Set(ctx context.Context, n int32) error {
	b, err := c.bytes()
	if err != nil {
		return err
	}
	return b.Set(ctx, encode(n))
}

// TrySet writes n only if the node still has previous.Version, and reports
// whether it did. When someone else wrote first it returns false and a nil
// error, after reading the newer value, so Get returns it at once. As
// Bytes.TrySet: a previous older than the value held fails at once, and
// one made up by the caller (Mzxid 0) must carry the version and the count
// held (Curator's trySetCount(VersionedValue, int)).
func (c *Count) TrySet(ctx context.Context, previous Value, n int32) (bool, error) {
	b, err := c.bytes()
	if err != nil {
		return false, err
	}
	prev := Versioned{Data: encode(previous.Count), Version: previous.Version, Mzxid: previous.Mzxid}
	if previous.Mzxid != 0 {
		// A reading of this count: compare by zxid (its data may be bad, and
		// then previous.Count is 0).
		prev.Data = nil
	}
	return b.TrySet(ctx, prev, encode(n))
}

// Close stops watching the node and closes every Events channel (values
// not yet received are dropped). It does no I/O and does not delete the node.
// Afterwards every other method returns an error wrapping
// zkrecipes.ErrClosed; a second Close returns the first one's result (nil).
func (c *Count) Close() error {
	if !c.valid() {
		return errZero()
	}
	c.mu.Lock()
	if c.phase == closed {
		c.mu.Unlock()
		return nil
	}
	c.phase = closed
	b := c.b
	c.mu.Unlock()
	if b != nil {
		_ = b.Close()
	}
	c.pumpWG.Wait()
	c.mu.Lock()
	c.closeChangesLocked()
	c.mu.Unlock()
	c.subWG.Wait()
	return nil
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
	if !c.valid() {
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
	return fmt.Errorf("zkrecipes: count %s: %w", c.path, countLife.Closed)
}

func (c *Count) errNotStarted() error {
	return fmt.Errorf("zkrecipes: count %s: %w", c.path, countLife.NotStarted)
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
