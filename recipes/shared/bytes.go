package shared

import (
	"bytes"
	"context"
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

// Versioned is one reading of a shared value: its bytes and the node's
// stat at the write that made them (Curator's VersionedValue<byte[]>).
type Versioned struct {
	// Data is the node's data. Readings are copies: changing Data changes
	// nothing else.
	Data []byte
	// Version is the node's data version; TrySet writes only while the node
	// still has it.
	Version int32
	// Mzxid is the zxid of the write that made this reading. It grows with
	// every write, even across a delete and re-create of the node, so of two
	// readings the one with the larger Mzxid is the newer.
	Mzxid int64
}

func (v Versioned) clone() Versioned {
	v.Data = bytes.Clone(v.Data)
	return v
}

// Bytes is a shared value of arbitrary bytes in one ZooKeeper node:
// Curator's SharedValue, wire compatible with it. See the package
// documentation. A Bytes is safe for concurrent use. A zero Bytes returns
// an error wrapping zkrecipes.ErrInvalidArgument from every method.
type Bytes struct {
	cl   *client.Client
	path string
	seed []byte
	what string // "shared value", or "count" for the one under a Count
	log  *slog.Logger

	stopCtx context.Context // cancelled by Close
	stop    context.CancelFunc
	wg      sync.WaitGroup // the background goroutine

	mu       sync.Mutex
	phase    phase
	closeErr error
	have     bool                                // val holds a reading
	val      Versioned                           // the newest reading
	valErr   error                               // what is wrong with val (node deleted, client closed), or nil
	chClosed bool                                // Events serves no one any more
	subs     map[*pubsub.Sub[Versioned]]struct{} // Events' queues
	subWG    sync.WaitGroup                      // their pumps
}

// NewBytes returns a shared value at path (relative to the client's
// namespace) that Start creates with seed if the node is missing. It does
// no I/O. A nil client or a nil option is an error wrapping
// zkrecipes.ErrInvalidArgument, a bad path a *client.PathError.
func NewBytes(c *client.Client, path string, seed []byte, opts ...Option) (*Bytes, error) {
	return newBytes(c, path, seed, "shared value", opts)
}

func newBytes(c *client.Client, path string, seed []byte, what string, opts []Option) (*Bytes, error) {
	if c == nil {
		return nil, errs.Invalid("nil client")
	}
	if err := client.ValidatePath(path); err != nil {
		return nil, err
	}
	var o options
	if err := option.Apply(what+" "+path, &o, opts); err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Bytes{
		cl:      c,
		path:    path,
		seed:    bytes.Clone(seed),
		what:    what,
		log:     access.RecipeLogger(c, what, path),
		stopCtx: ctx,
		stop:    stop,
	}, nil
}

func (b *Bytes) valid() bool { return b != nil && b.cl != nil }

// Path returns the value's path, relative to the client's namespace.
func (b *Bytes) Path() string {
	if !b.valid() {
		return ""
	}
	return b.path
}

// Start creates the node with the seed if it is missing (missing parents
// as containers, as Curator does), reads it and keeps watching it until
// Close. It returns once the first value is read, or when ctx ends: then
// the value goes on starting in the background until Close (Get says
// zkrecipes.ErrNotStarted until it has read the node). An error that will
// not pass by trying again (the client is closed; the node is missing and
// the client may not create it) leaves nothing running, and Start may be
// called again. A client that may read the node but not create it starts
// all the same when the node is there; its writes are refused.
// zkrecipes.ErrAlreadyStarted on a second Start, zkrecipes.ErrClosed after
// Close.
func (b *Bytes) Start(ctx context.Context) error {
	if !b.valid() {
		return errBytesZero()
	}
	if ctx == nil {
		return errs.Invalid("nil context")
	}
	b.mu.Lock()
	switch b.phase {
	case closed:
		b.mu.Unlock()
		return b.errClosed()
	case starting, started:
		b.mu.Unlock()
		return fmt.Errorf("zkrecipes: %s %s: %w", b.what, b.path, lifeOf(b.what).AlreadyStarted)
	}
	b.phase = starting
	b.mu.Unlock()
	// Subscribe before the first read, so that no reconnect after it is missed.
	states, unsub := b.cl.Subscribe()
	ready := make(chan error, 1)
	b.wg.Add(1)
	go b.run(states, unsub, ready)
	select {
	case err := <-ready:
		if err != nil {
			return fmt.Errorf("zkrecipes: start %s %s: %w", b.what, b.path, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("zkrecipes: start %s %s: %w (it goes on starting in the background)", b.what, b.path, ctx.Err())
	}
}

// run loads the value (retrying what can pass), reports to ready, then
// keeps it current until Close or the client closes.
func (b *Bytes) run(states <-chan client.StateChange, unsub func(), ready chan<- error) {
	defer b.wg.Done()
	defer unsub()
	w, err := b.load(states)
	if err != nil {
		b.mu.Lock()
		if b.phase == starting {
			b.phase = idle
		}
		b.mu.Unlock()
		if b.stopCtx.Err() == nil {
			b.log.Warn(b.what+": start failed for good", "path", b.path, "err", err)
		}
		ready <- err
		return
	}
	b.mu.Lock()
	if b.phase == starting {
		b.phase = started
	}
	b.mu.Unlock()
	ready <- nil
	b.watch(states, w)
}

// load makes and reads the node until it succeeds, Close, or an error that
// will not pass.
func (b *Bytes) load(states <-chan client.StateChange) (*client.Watch, error) {
	delay := minRetry
	for {
		w, err := b.first(b.stopCtx)
		switch {
		case err == nil:
			return w, nil
		case b.stopCtx.Err() != nil:
			return nil, b.errClosed()
		case finalErr(err):
			return nil, err
		}
		b.log.Debug(b.what+": reading the node failed; retrying", "path", b.path, "err", err, "in", delay)
		if !b.sleep(states, delay) {
			return nil, b.errClosed()
		}
		delay = min(2*delay, maxRetry)
	}
}

// finalErr reports whether a failed first read will not pass by trying
// again.
func finalErr(err error) bool {
	var acl *client.ACLError
	return errors.As(err, &acl) || errors.Is(err, zk.ErrNoAuth) || errors.Is(err, zkrecipes.ErrClosed) ||
		errors.Is(err, zkrecipes.ErrInvalidArgument)
}

// first makes the node if it is missing and reads it with a data watch.
func (b *Bytes) first(ctx context.Context) (*client.Watch, error) {
	for {
		_, createErr := b.cl.Create(ctx, b.path, b.seed, zk.FlagPersistent, client.WithParents())
		// The server checks the parent's ACL before whether the node
		// exists: a reader that may not create learns only by reading.
		denied := errors.Is(createErr, zk.ErrNoAuth)
		if createErr != nil && !errors.Is(createErr, zk.ErrNodeExists) && !denied {
			return nil, createErr
		}
		data, st, w, err := b.cl.GetWatch(ctx, b.path)
		switch {
		case errors.Is(err, zk.ErrNoNode) && denied:
			return nil, createErr // missing, and this client may not make it
		case errors.Is(err, zk.ErrNoNode):
			continue // deleted between the create and the read: make it again
		}
		if err != nil {
			return nil, err
		}
		b.observe(data, st, false)
		return w, nil
	}
}

// Get returns the newest value this shared value has read or written. It
// does no I/O. The error is zkrecipes.ErrNotStarted before Start has read
// the node, zkrecipes.ErrClosed after Close or once the client is closed,
// or wraps zk.ErrNoNode when the node was deleted (the reading is then the
// last one).
func (b *Bytes) Get() (Versioned, error) {
	if !b.valid() {
		return Versioned{}, errBytesZero()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.phase == closed:
		return Versioned{}, b.errClosed()
	case !b.have:
		return Versioned{}, b.errNotStarted()
	}
	return b.val.clone(), b.valErr
}

// Set writes data whatever the node's version.
func (b *Bytes) Set(ctx context.Context, data []byte) error {
	if err := b.usable(); err != nil {
		return err
	}
	st, err := b.cl.Set(ctx, b.path, data, -1)
	if err != nil {
		return fmt.Errorf("zkrecipes: set %s %s: %w", b.what, b.path, err)
	}
	b.observe(data, st, true)
	return nil
}

// TrySet writes data only if the value has not changed since previous was
// read, and reports whether it did: ZooKeeper's compare-and-set on the
// node's version, as Curator's trySetValue. Of several processes that
// TrySet from one reading, exactly one succeeds. When someone else wrote
// first, TrySet returns false and a nil error having read the newer value,
// so Get returns it at once.
//
// previous is a reading from Get or Events. One older than the value held
// (a smaller Mzxid) fails at once, with no I/O: Get already has the newer
// one (and a node deleted and made again, whose version starts over,
// cannot be overwritten from a reading of the old one). A Versioned made
// up by the caller (Mzxid 0) must carry the version and the bytes of the
// value held, as Curator requires.
func (b *Bytes) TrySet(ctx context.Context, previous Versioned, data []byte) (bool, error) {
	if err := b.usable(); err != nil {
		return false, err
	}
	b.mu.Lock()
	held := b.val
	b.mu.Unlock()
	switch {
	case previous.Mzxid == 0 && (previous.Version != held.Version || !bytes.Equal(previous.Data, held.Data)):
		return false, nil
	case previous.Mzxid != 0 && previous.Mzxid < held.Mzxid:
		return false, nil
	}
	st, err := b.cl.Set(ctx, b.path, data, previous.Version)
	if errors.Is(err, zk.ErrBadVersion) {
		// As Curator's trySetValue: learn the newer value now. Should this
		// read fail, the watcher brings it in.
		if cur, cst, err := b.cl.Get(ctx, b.path); err == nil {
			b.observe(cur, cst, true)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("zkrecipes: try set %s %s: %w", b.what, b.path, err)
	}
	b.observe(data, st, true)
	return true, nil
}

// Close stops watching the node and closes every Events channel (values
// not yet received are dropped). It does no I/O and does not delete the
// node. Afterwards every other method returns an error wrapping
// zkrecipes.ErrClosed; a second Close returns the first one's result
// (nil).
func (b *Bytes) Close() error {
	if !b.valid() {
		return errBytesZero()
	}
	b.mu.Lock()
	if b.phase == closed {
		err := b.closeErr
		b.mu.Unlock()
		b.wg.Wait()
		b.subWG.Wait()
		return err
	}
	b.phase = closed
	b.mu.Unlock()
	b.stop()
	b.wg.Wait()
	b.mu.Lock()
	b.closeEventsLocked()
	b.mu.Unlock()
	b.subWG.Wait()
	return nil
}

// usable is nil once the first value is read and before Close.
func (b *Bytes) usable() error {
	if !b.valid() {
		return errBytesZero()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.phase == closed:
		return b.errClosed()
	case b.phase != started:
		return b.errNotStarted()
	}
	return nil
}

// observe takes a reading (data and its stat) if it is newer than the one
// held, and sends it to Events' subscribers when publish is set (the first
// reading, made by Start, is not a change).
func (b *Bytes) observe(data []byte, st *zk.Stat, publish bool) {
	if st == nil {
		return
	}
	v := Versioned{Data: bytes.Clone(data), Version: st.Version, Mzxid: st.Mzxid}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.have && v.Mzxid <= b.val.Mzxid {
		return
	}
	b.have, b.val, b.valErr = true, v, nil
	if publish && !b.chClosed {
		for sub := range b.subs {
			sub.Push(v.clone())
		}
	}
}

// setErr records a problem with the held value that a read revealed.
func (b *Bytes) setErr(err error) {
	b.mu.Lock()
	b.valErr = err
	b.mu.Unlock()
}

// closeEventsLocked ends every subscription (b.mu is held).
func (b *Bytes) closeEventsLocked() {
	if !b.chClosed {
		b.chClosed = true
		for sub := range b.subs {
			sub.Stop()
		}
		b.subs = nil
	}
}

// Events returns a channel that receives every new value from now on, in
// order, none dropped however slowly it is read (each subscriber has its
// own unbounded queue), and a function that ends the subscription and
// closes the channel. The first reading, made by Start, is not a change;
// the value's own writes (Set, TrySet) are. ZooKeeper keeps no history:
// of several writes by others between two reads, the reads see the last.
// The channel is closed by Close, or when the client closes; after that,
// and for a zero Bytes, Events returns a closed channel. Cancelling twice
// is harmless.
func (b *Bytes) Events() (<-chan Versioned, func()) {
	if !b.valid() {
		return pubsub.Closed[Versioned](), func() {}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.chClosed {
		return pubsub.Closed[Versioned](), func() {}
	}
	sub := pubsub.New[Versioned]()
	if b.subs == nil {
		b.subs = make(map[*pubsub.Sub[Versioned]]struct{})
	}
	b.subs[sub] = struct{}{}
	b.subWG.Add(1)
	go func() {
		defer b.subWG.Done()
		sub.Run()
	}()
	return sub.Out(), func() {
		b.mu.Lock()
		delete(b.subs, sub)
		b.mu.Unlock()
		sub.Stop()
	}
}

func (b *Bytes) errClosed() error {
	return fmt.Errorf("zkrecipes: %s %s: %w", b.what, b.path, lifeOf(b.what).Closed)
}

func (b *Bytes) errNotStarted() error {
	return fmt.Errorf("zkrecipes: %s %s: %w", b.what, b.path, lifeOf(b.what).NotStarted)
}
