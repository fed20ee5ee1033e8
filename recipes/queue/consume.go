package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// consumer is one running Consume.
type consumer struct {
	q   *core
	h   Handler
	reg *node.Node // its node in the registry (nil if it could not be made)

	failures int // handlers failed in a row: each failure waits a little more

	mu       sync.Mutex
	rank     int       // its place among the registered consumers
	of       int       // how many there are
	viewedAt time.Time // when the registry was last listed
}

// viewEvery is how often a consumer lists the registry for its rank.
const viewEvery = time.Second

// consume is every kind's Consume: it takes items and hands them to h
// until ctx ends or Close. Errors that may pass (a lost connection, a
// session expiry) are retried; it returns ErrClosed after Close, ctx's
// error when ctx ended, or an error that will not pass (an ACL refusal).
func (q *core) consume(ctx context.Context, h Handler) error {
	if h == nil {
		return invalidArg("nil handler")
	}
	if err := q.usable(ctx); err != nil {
		return err
	}
	if err := q.enter(); err != nil {
		return err
	}
	defer q.running.Done()
	ctx, cancel := q.bind(ctx)
	defer cancel()
	c := &consumer{q: q, h: h, of: 1}
	c.register()
	defer c.unregister()
	delay, failing := 50*time.Millisecond, 0
	for {
		if err := q.ended(ctx); err != nil {
			return err
		}
		n, relist, err := c.pass(ctx)
		if err == nil && n == 0 && !relist {
			err = c.idle(ctx)
		}
		if err == nil {
			delay, failing = 50*time.Millisecond, 0
			continue
		}
		if e := q.ended(ctx); e != nil {
			return e
		}
		if fatal(err) {
			return q.wrap("consume", err)
		}
		if failing++; failing == 10 {
			// What an operator must hear of: a queue whose listing no
			// longer fits jute.maxbuffer (some 50,000 items) fails so,
			// each try dropping the connection.
			q.log.Warn("zkrecipes: queue consumer keeps failing (a queue too long to list drops the connection each time)",
				"err", err)
		}
		q.log.Debug("zkrecipes: queue consumer retrying", "err", err, "sleep", delay)
		if !lockq.Sleep(ctx, delay) {
			continue
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// register puts the consumer in the registry (an ephemeral sequential
// protected node, kept through session losses by recipes/node). It is
// best effort: without it the consumer only has no rank.
func (c *consumer) register() {
	host, _ := os.Hostname()
	data := fmt.Appendf(nil, "%s pid=%d %s started=%s", strings.TrimSpace(string(lockq.DefaultData())), os.Getpid(), host,
		time.Now().UTC().Format(time.RFC3339))
	reg, err := node.New(c.q.cl, c.q.consumerPath+"/members/consumer-", data,
		node.WithMode(node.EphemeralSequential), node.WithProtection())
	if err != nil {
		return
	}
	started, now := context.WithCancel(context.Background())
	now() // Start keeps making the node in the background
	if err := reg.Start(started); err != nil && !errors.Is(err, context.Canceled) {
		return
	}
	c.reg = reg
}

// unregister deletes the consumer's registry node (guaranteed).
func (c *consumer) unregister() {
	if c.reg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.reg.Close(ctx)
}

// view returns the consumer's rank among the registered consumers and
// their number, listing the registry at most every viewEvery.
func (c *consumer) view(ctx context.Context) (rank, of int) {
	c.mu.Lock()
	rank, of, fresh := c.rank, c.of, time.Since(c.viewedAt) < viewEvery
	c.mu.Unlock()
	if fresh || c.reg == nil {
		return rank, of
	}
	mine := c.reg.Path()
	kids, _, err := c.q.cl.Children(ctx, c.q.consumerPath+"/members")
	rank, of = 0, 1
	if err == nil && mine != "" {
		slices.SortFunc(kids, func(a, b string) int { return strings.Compare(seqOf(a), seqOf(b)) })
		if i := slices.Index(kids, mine[strings.LastIndexByte(mine, '/')+1:]); i >= 0 {
			rank, of = i, len(kids)
		}
	}
	c.mu.Lock()
	c.rank, c.of, c.viewedAt = rank, of, time.Now()
	c.mu.Unlock()
	return rank, of
}

// seqOf is the sequence suffix of a name ("" for none).
func seqOf(name string) string {
	s, _ := sequence(name)
	return s
}

// list lists the queue's item nodes in consumer order; a missing queue
// node has none.
func (c *consumer) list(ctx context.Context) ([]entry, error) {
	names, _, err := c.q.cl.Children(ctx, c.q.path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	items, foreign := c.q.k.entries(names)
	c.q.noteForeign(foreign)
	return items, nil
}

// pass lists the queue and takes what it can from that listing (all of it,
// or WithMinItemsBeforeRefresh items), processing each item it took. It
// returns how many it took, and whether to list again at once: after as
// many takes in a row as there are consumers found the item gone (others
// took what followed in a listing grown old), a fresh listing costs less
// than trying the rest of it.
func (c *consumer) pass(ctx context.Context) (int, bool, error) {
	items, err := c.list(ctx)
	if err != nil || len(items) == 0 {
		return 0, false, err
	}
	rank, of := c.view(ctx)
	window := len(items)
	if c.q.o.refreshAfter >= 0 {
		window = of // a priority's order is kept up to the number of consumers
	}
	limit := c.q.o.refreshAfter
	n, misses := 0, 0
	var held lockView
	ordered := order(items, rank, of, window)
	var pre struct { // the take made with the last removal, of the entry named
		name string
		t    *taken
	}
	// Every way out processes what is taken already: its lock is this
	// consumer's, and only processing or releasing it lets it go.
	done := func(relist bool, err error) (int, bool, error) {
		if pre.t != nil {
			c.processed(ctx, pre.t, nil)
			n++
		}
		return n, relist, err
	}
	for i, e := range ordered {
		if ctx.Err() != nil {
			break
		}
		if !e.due0(time.Now()) {
			continue
		}
		var t *taken
		if pre.name == e.name {
			t, pre.name, pre.t = pre.t, "", nil
			if t == nil {
				if misses++; misses >= max(of, 2) {
					return done(true, nil)
				}
				continue
			}
		} else {
			tried := !held.held[e.name]
			var err error
			t, err = c.q.tryTake(ctx, e, &held)
			if err != nil {
				return done(false, err)
			}
			if t == nil {
				if tried && !held.held[e.name] {
					if misses++; misses >= max(of, 2) {
						return done(true, nil)
					}
				}
				continue
			}
		}
		misses = 0
		var next *entry
		if c.q.lockSafe() && (limit < 0 || n+1 < max(limit, 1)) {
			next = nextTake(ordered[i+1:], &held)
		}
		nt, tried, err := c.processed(ctx, t, next)
		n++
		if tried {
			switch {
			case errors.Is(err, errHeld):
				c.q.noteHeld(ctx, next.name, &held)
			case errors.Is(err, errNoLockPath):
				// The lock path was reaped meanwhile: the loop's own take
				// of next makes it again.
			case err != nil:
				return done(false, err)
			default:
				pre.name, pre.t = next.name, nt
			}
		}
		if limit >= 0 && n >= max(limit, 1) {
			break
		}
	}
	return done(false, nil)
}

// nextTake is the first of rest a pass would try: due, and not known held.
func nextTake(rest []entry, held *lockView) *entry {
	now := time.Now()
	for i := range rest {
		if rest[i].due0(now) && !held.held[rest[i].name] {
			return &rest[i]
		}
	}
	return nil
}

// lockView is what one pass over a listing learnt of the lock path: the
// items whose lock another consumer holds, listed once at the first lock
// found taken, so that a pass does not try each of them in turn.
type lockView struct {
	listed bool
	held   map[string]bool
	first  string // the first item in order found held
}

// tryTake takes e unless its lock is known held (lock-safe): nil when it
// is gone or held.
func (q *core) tryTake(ctx context.Context, e entry, v *lockView) (*taken, error) {
	if v.held[e.name] {
		if v.first == "" {
			v.first = e.name
		}
		return nil, nil
	}
	t, err := q.take(ctx, e)
	if !errors.Is(err, errHeld) {
		return t, err
	}
	q.noteHeld(ctx, e.name, v)
	return nil, nil
}

// noteHeld notes in v that another consumer holds name, listing the lock
// path at the first: what it holds besides is skipped without a try.
func (q *core) noteHeld(ctx context.Context, name string, v *lockView) {
	if v.first == "" {
		v.first = name
	}
	if !v.listed {
		v.listed = true
		kids, _, lerr := q.cl.Children(ctx, q.lockPath)
		if lerr == nil {
			v.held = make(map[string]bool, len(kids)+1)
			for _, k := range kids {
				v.held[k] = true
			}
		}
	}
	if v.held == nil {
		v.held = map[string]bool{}
	}
	v.held[name] = true
}

// due0 reports whether e's item may be taken at now.
func (e entry) due0(now time.Time) bool { return e.due <= 0 || e.due <= now.UnixMilli() }

// order is the order in which consumer rank of `of` tries a listing's
// items. Each consumer first takes the items whose sequence number is its
// rank modulo the number of consumers, among the first window items (all
// of them for a FIFO queue), so that consumers working through one listing
// do not all try the same items; then every other item, starting at an
// offset of its rank, for the items whose consumer is busy elsewhere. One
// consumer takes them in the listing's order.
func order(items []entry, rank, of, window int) []entry {
	if of <= 1 || len(items) <= 1 {
		return items
	}
	out := make([]entry, 0, len(items))
	mine := make([]bool, len(items))
	for i := range min(window, len(items)) {
		if stripe(items[i].name, of) == rank {
			out = append(out, items[i])
			mine[i] = true
		}
	}
	var rest []entry
	for i, e := range items {
		if !mine[i] {
			rest = append(rest, e)
		}
	}
	if len(rest) > 0 && window >= len(items) {
		k := rank % len(rest)
		rest = append(rest[k:], rest[:k]...)
	}
	return append(out, rest...)
}

// stripe is the consumer (of `of`) an item node's name falls to first.
func stripe(name string, of int) int {
	seq, ok := sequence(name)
	if !ok {
		return 0
	}
	n, _ := strconv.ParseInt(seq, 10, 64)
	return int(n % int64(of))
}

// idle waits for an item while the queue has none this consumer can take:
// it queues on the idle line (a recipes/mutex lock under the consumer
// path), and the one idle consumer holding it watches the queue, takes the
// first item that comes, leaves the line (so the next idle consumer
// watches) and processes it. A put wakes one idle consumer, not all.
func (c *consumer) idle(ctx context.Context) error {
	q := c.q
	if err := q.idle.Lock(ctx); err != nil {
		return err
	}
	held := true
	leave := func() {
		if held {
			held = false
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = q.idle.Unlock(uctx) // a lost holding is only a watcher less
		}
	}
	defer leave()
	t, err := q.watchTake(ctx)
	if err != nil || t == nil {
		return err
	}
	leave()
	c.processed(ctx, t, nil)
	return nil
}

// processed processes t (taking next with its removal, see process);
// after a handler's failure it waits 10 ms, twice that after each further
// failure in a row, up to a second, so that a handler that keeps failing
// does not spin the queue (a requeued item comes back at once).
func (c *consumer) processed(ctx context.Context, t *taken, next *entry) (*taken, bool, error) {
	failed, nt, tried, err := c.q.process(ctx, c.h, t, next)
	if !failed {
		c.failures = 0
		return nt, tried, err
	}
	c.failures++
	lockq.Sleep(ctx, min(10*time.Millisecond<<min(c.failures-1, 10), time.Second))
	return nt, tried, err
}

// watchTake lists the queue with a watch until it takes an item (nil when
// ctx ends first): a missing queue node (never made, or reaped once empty:
// it is a container) is watched for its creation; a delay queue's first
// item not yet due sets a timer.
func (q *core) watchTake(ctx context.Context) (*taken, error) {
	// Each pass's watches are given up when it ends, whether they fired
	// or not: a consumer that stops leaves none behind.
	var ev, lev *client.Watch
	defer func() { ev.Stop(); lev.Stop() }()
	for {
		ev.Stop()
		lev.Stop()
		ev, lev = nil, nil
		if ctx.Err() != nil {
			return nil, nil
		}
		names, _, w, err := q.cl.ChildrenWatch(ctx, q.path)
		ev = w
		if errors.Is(err, zk.ErrNoNode) {
			ok, _, xev, err := q.cl.ExistsWatch(ctx, q.path)
			if err != nil {
				return nil, err
			}
			ev = xev
			if !ok {
				waitEvent(ctx, ev, nil, q.closeCtx, time.Time{})
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		items, foreign := q.k.entries(names)
		q.noteForeign(foreign)
		var next time.Time
		var held lockView
		for _, e := range items {
			if now := time.Now(); !e.due0(now) {
				if at := e.dueAt(); next.IsZero() || at.Before(next) {
					next = at
				}
				continue
			}
			t, err := q.tryTake(ctx, e, &held)
			if err != nil || t != nil {
				return t, err
			}
		}
		if held.first == "" {
			waitEvent(ctx, ev, nil, q.closeCtx, next)
			continue
		}
		// Every due item is held by another consumer: wait for the first
		// one's lock to go too (its consumer committed, gave it up, or its
		// session ended), which changes nothing in the queue itself.
		_, _, lev, err = q.cl.GetWatch(ctx, q.lockPath+"/"+held.first)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			continue
		case err != nil:
			return nil, err
		}
		waitEvent(ctx, ev, lev, q.closeCtx, next)
	}
}

// waitEvent waits for a watch event, ctx, Close or the instant at (none
// when zero).
func waitEvent(ctx context.Context, ev, ev2 *client.Watch, closing context.Context, at time.Time) {
	var timer <-chan time.Time
	if !at.IsZero() {
		t := time.NewTimer(max(time.Until(at), time.Millisecond))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ev.Events():
	case <-ev2.Events():
	case <-timer:
	case <-ctx.Done():
	case <-closing.Done():
	}
}
