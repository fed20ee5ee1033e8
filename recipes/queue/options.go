package queue

import (
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/enum"
)

// Option configures a queue. A bad value makes the constructor return an
// error wrapping zkrecipes.ErrInvalidArgument (a *client.PathError for a bad
// path).
type Option func(*options) error

type options struct {
	lockPath      string // "" for none: not lock-safe
	consumerPath  string // "" for the default: the queue's path + "-consumers"
	maxItems      int    // 0 for unbounded
	errorMode     ErrorMode
	errorModeSet  bool
	refreshAfter  int // re-list after this many items; -1 for the whole listing
	refreshSet    bool
	maxBuffer     int
	sessionLossOK bool // the handler's ctx ends only when the session is lost

	// A failed item's requeues (lock-safe, Requeue mode): see attempts.go.
	maxAttempts  int    // give an item up after this many failed attempts; 0 for never
	deadLetter   string // where a given-up item goes; "" to delete it
	backoffFirst time.Duration
	backoffMax   time.Duration
	attemptsSet  bool // WithMaxAttempts, WithDeadLetterPath or WithRequeueBackoff was given
}

// DefaultMaxBuffer is ZooKeeper's default jute.maxbuffer (0xfffff bytes):
// the largest request a server takes before it drops the connection.
const DefaultMaxBuffer = 0xfffff

// The defaults of a failed item's requeues (lock-safe, Requeue mode).
const (
	// DefaultRequeueBackoff is how long a consumer keeps an item after its
	// first failed attempt before it requeues it (WithRequeueBackoff);
	// each further failure of the item doubles it.
	DefaultRequeueBackoff = 100 * time.Millisecond
	// DefaultMaxRequeueBackoff bounds that wait (WithRequeueBackoff).
	DefaultMaxRequeueBackoff = 5 * time.Second
	// DefaultMaxAttempts is how many failed attempts a queue with a
	// dead-letter path (WithDeadLetterPath) allows an item before it moves
	// it there, unless WithMaxAttempts says otherwise. Without a
	// dead-letter path an item is requeued for ever, as Curator does.
	DefaultMaxAttempts = 5
)

// ErrorMode says what a lock-safe consumer does with an item whose handler
// returned an error (Curator's ErrorMode).
type ErrorMode int

const (
	// Requeue puts the item back at the tail of the queue (the items of a
	// node from PutMulti that were not processed yet), with the same id,
	// priority or due time: Curator's REQUEUE, the default.
	Requeue ErrorMode = iota
	// Delete removes the item all the same: Curator's DELETE.
	Delete
)

// String names the mode.
func (m ErrorMode) String() string { return enum.Name(m, Requeue, "ErrorMode", "requeue", "delete") }

// WithLockPath makes the queue lock-safe (Curator's lockPath): a consumer
// takes an item by creating an ephemeral node lockPath/<item's name> and
// removes the item only after its handler returned, in one transaction
// with the lock node, so an item whose consumer dies goes to another. The
// path must differ from the queue's and be shared by every producer and
// consumer of the queue, Java or Go; it must not be shared with another
// queue (lock nodes are named by item).
func WithLockPath(p string) Option {
	return func(o *options) error {
		if err := client.ValidatePath(p); err != nil {
			return err
		}
		if p == "/" {
			return &client.PathError{Path: p, Reason: "a lock path needs a node of its own, not the root"}
		}
		o.lockPath = p
		return nil
	}
}

// WithMaxItems bounds the queue (Curator's maxItems with putInBackground
// false): a put waits while the queue node has n children or more. Like
// Curator's, the bound is approximate: producers that find room at the
// same instant all put, so with P producers the queue holds at most
// n + P - 1 items. n must be positive.
func WithMaxItems(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return invalidArg("max items %d: must be positive", n)
		}
		o.maxItems = n
		return nil
	}
}

// WithErrorMode sets what a lock-safe consumer does when its handler
// returns an error (default Requeue). It needs WithLockPath: without a
// lock, an item is removed before its handler runs, as in Curator.
func WithErrorMode(m ErrorMode) Option {
	return func(o *options) error {
		if m != Requeue && m != Delete {
			return invalidArg("unknown error mode %d", int(m))
		}
		o.errorMode, o.errorModeSet = m, true
		return nil
	}
}

// WithMaxAttempts gives an item up after n failed attempts (lock-safe,
// Requeue mode): an attempt fails when its handler returns an error, or
// when its removal is refused because of an op the handler gave
// Item.CommitWith (a create under a missing parent, an owner check of a
// lock released meanwhile). After the n-th, the item is moved to the
// dead-letter path (WithDeadLetterPath: a DeadLettered event) or, without
// one, deleted (a Dropped event); both events' errors wrap
// ErrMaxAttempts and the last failure, and the item is logged at Warn.
// Until then each failure requeues the item after a backoff
// (WithRequeueBackoff). n must be positive; 1 gives an item up at its
// first failure. Default: never (Curator's REQUEUE requeues for ever), or
// DefaultMaxAttempts with a dead-letter path. Attempts are counted in the
// item's node (see the package documentation), by every Go consumer of the
// queue; a Java consumer's requeue starts the count again.
func WithMaxAttempts(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return invalidArg("max attempts %d: must be positive", n)
		}
		o.maxAttempts, o.attemptsSet = n, true
		return nil
	}
}

// WithDeadLetterPath makes a lock-safe queue move an item it gives up
// (WithMaxAttempts; DefaultMaxAttempts when not given) under p instead of
// deleting it: in one transaction with its removal, the item's node is
// created again under p, with its name's prefix (so its id, priority or
// due time) and its items (of a node from PutMulti, those not processed),
// in Curator's format. The dead-letter path is thus a queue of the same
// kind: a handle made with New (NewID, ...) on p reads, retries or
// empties it. Its node is made, as a container, when the first item goes
// there. p must differ from the queue's path, its lock path and its
// consumer path, and be neither under nor above any of them.
func WithDeadLetterPath(p string) Option {
	return func(o *options) error {
		if err := client.ValidatePath(p); err != nil {
			return err
		}
		if p == "/" {
			return &client.PathError{Path: p, Reason: "a dead-letter path needs a node of its own, not the root"}
		}
		o.deadLetter, o.attemptsSet = p, true
		return nil
	}
}

// WithRequeueBackoff sets how long a lock-safe consumer keeps an item whose
// attempt failed before it requeues it (Requeue mode): first after the
// first failure, twice as long after each further one, up to max (default
// DefaultRequeueBackoff and DefaultMaxRequeueBackoff: 0.1, 0.2, 0.4, 0.8,
// 1.6, 3.2, then 5 s). The item's lock is held meanwhile, so no consumer,
// Java or Go, takes it; the consumer that failed it waits too (Close, or
// the end of the ctx of Consume, cuts the wait short and requeues at
// once). A handler that stopped because its ctx ended is not a failure:
// its item is requeued or released at once. first must be positive, max
// at least first.
func WithRequeueBackoff(first, max time.Duration) Option {
	return func(o *options) error {
		if first <= 0 {
			return invalidArg("requeue backoff %v: must be positive", first)
		}
		if max < first {
			return invalidArg("max requeue backoff %v: must be at least the first, %v", max, first)
		}
		o.backoffFirst, o.backoffMax, o.attemptsSet = first, max, true
		return nil
	}
}

// WithMinItemsBeforeRefresh is Curator's minItemsBeforeRefresh: a consumer
// lists the queue, takes n items from that listing (at least one), and
// lists again. Default: the whole listing for the queue, id queue and delay
// queue (as Curator), 0 for the priority queue, so that an item of a
// higher priority put meanwhile is the next one taken. n must not be
// negative.
func WithMinItemsBeforeRefresh(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return invalidArg("min items before refresh %d: must not be negative", n)
		}
		o.refreshAfter, o.refreshSet = n, true
		return nil
	}
}

// WithConsumerPath sets where consumers register and wait in line (default:
// the queue's path + "-consumers"): PATH/members holds an ephemeral node
// per running Consume, which zkr queue lists, and PATH/idle a lock
// (recipes/mutex's layout) that idle consumers queue on, so that only one
// of them watches the queue and a put wakes one consumer, not all. Curator
// knows nothing of it; Java consumers watch the queue themselves.
func WithConsumerPath(p string) Option {
	return func(o *options) error {
		if err := client.ValidatePath(p); err != nil {
			return err
		}
		if p == "/" {
			return &client.PathError{Path: p, Reason: "a consumer path needs a node of its own, not the root"}
		}
		o.consumerPath = p
		return nil
	}
}

// WithMaxBuffer sets the server's jute.maxbuffer, the largest request it
// takes (default DefaultMaxBuffer): a put, or a lock-safe requeue, whose
// request would be larger fails with a *TooLargeError before anything is
// sent. Set it to what the servers run with when they raise it.
func WithMaxBuffer(n int) Option {
	return func(o *options) error {
		if n < 1024 {
			return invalidArg("max buffer %d: must be at least 1024 bytes", n)
		}
		o.maxBuffer = n
		return nil
	}
}

// WithLostOnSessionLossOnly makes a lock-safe handler's ctx end only when
// the session holding the item's lock is lost, not as soon as the
// connection is suspended (the default, like a recipes/mutex holding's
// Lost). The lock may then be gone, and the item with another consumer,
// before the handler learns of it; its removal is refused all the same.
func WithLostOnSessionLossOnly() Option {
	return func(o *options) error {
		o.sessionLossOK = true
		return nil
	}
}

// apply runs opts over the defaults of kind k.
func apply(k kind, opts []Option) (options, error) {
	o := options{refreshAfter: -1, maxBuffer: DefaultMaxBuffer,
		backoffFirst: DefaultRequeueBackoff, backoffMax: DefaultMaxRequeueBackoff}
	if k == kindPriority {
		o.refreshAfter = 0
	}
	for _, opt := range opts {
		if opt == nil {
			return o, invalidArg("nil option")
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	if o.errorModeSet && o.lockPath == "" {
		return o, invalidArg("an error mode needs a lock path (WithLockPath)")
	}
	if o.attemptsSet && o.lockPath == "" {
		return o, invalidArg("max attempts, a dead-letter path and a requeue backoff need a lock path (WithLockPath): without one an item is removed before its handler runs")
	}
	if o.attemptsSet && o.errorMode == Delete {
		return o, invalidArg("max attempts, a dead-letter path and a requeue backoff apply to the Requeue error mode: Delete removes a failed item at once (for a dead letter at the first failure, use WithMaxAttempts(1))")
	}
	if o.deadLetter != "" && o.maxAttempts == 0 {
		o.maxAttempts = DefaultMaxAttempts
	}
	return o, nil
}
