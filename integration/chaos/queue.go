package chaos

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// The queue workload's paths: the lock-safe queue's items, its lock path,
// its consumers' registry and idle line, and the records each consumed
// item leaves, committed in the transaction that removes it.
const (
	QueueDir       = "/chaos/queue"
	QueueItems     = QueueDir + "/items"
	QueueLocks     = QueueDir + "/locks"
	QueueConsumers = QueueDir + "/consumers"
	QueueDone      = QueueDir + "/done"
)

// QueueRun is one queue scenario: its participants' workers and what
// their puts and handlers did. Its Start and Settle are the scenario's.
type QueueRun struct {
	mu      sync.Mutex
	workers []*QueueWorker
	put     map[string]bool // items whose Put returned nil
	maybe   map[string]bool // items whose Put returned ErrMaybeApplied
	failed  map[string]bool // items whose Put failed otherwise: not in the queue
	handled map[string]int  // handler calls per item
	kills   int
	lives   int
	settled QueueTally
	recent  []string // the last events the consumers told, for a failed drain
}

// NewQueueRun returns the state of one queue scenario.
func NewQueueRun() *QueueRun {
	return &QueueRun{put: map[string]bool{}, maybe: map[string]bool{}, failed: map[string]bool{}, handled: map[string]int{}}
}

// QueueTally is what a queue scenario did, as Settle found it.
type QueueTally struct {
	Put, Maybe, Failed int // the puts' outcomes
	Consumed           int // items recorded exactly once
	MaybeConsumed      int // of the maybe-put items, those recorded (once)
	Redelivered        int // items whose handler ran more than once (each recorded once)
	Kills              int // consumer incarnations killed holding an item
	Incarnations       int // consumer incarnations started
}

// String is the tally in one line.
func (t QueueTally) String() string {
	return fmt.Sprintf("put=%d maybe=%d failed=%d consumed=%d maybe-consumed=%d redelivered=%d kills=%d incarnations=%d",
		t.Put, t.Maybe, t.Failed, t.Consumed, t.MaybeConsumed, t.Redelivered, t.Kills, t.Incarnations)
}

// Tally returns what Settle found (zero before it ran).
func (r *QueueRun) Tally() QueueTally {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.settled
}

// QueueWorker is one participant of the queue scenario: a producer that
// puts an item named after it every 30 to 90 ms on its client, and a
// lock-safe consumer that runs in incarnations, each with a client of its
// own through the participant's fault link. Its handler holds an item 1 to
// 10 ms (one in twenty: a third to two session timeouts, so that faults hit
// consumers mid-item) and records it with Item.CommitWith: a sequential
// node QueueDone/<item>- in the item's removal. A handler whose ctx ended
// (its lock may be gone) returns nil all the same one time in two: its
// removal must then be refused unless the lock survived. During the fault
// phase, one item in 25 kills the incarnation mid-item: its connections
// drop and it dials no more, so its session expires on the server with
// the item's lock, as when a process dies; the next incarnation starts
// at once. Each handler call is a holding of kind "take" in the history,
// so the calm phase waits until every participant's consumer took items
// again.
type QueueWorker struct {
	Part
	run      *QueueRun
	producer *queue.Queue

	mu     sync.Mutex // held through each Put, so that Pause waits for the one under way
	paused bool
	n      int
}

// queueOpts are the options of every handle of the workload.
var queueOpts = []queue.Option{queue.WithLockPath(QueueLocks), queue.WithConsumerPath(QueueConsumers)}

// Start makes participant p's worker on c and returns its run function.
func (r *QueueRun) Start(ctx context.Context, c *client.Client, p Part) (func(context.Context), error) {
	if err := c.EnsureContainers(ctx, QueueDone); err != nil {
		return nil, err
	}
	q, err := queue.New(c, QueueItems, queueOpts...)
	if err != nil {
		return nil, err
	}
	w := &QueueWorker{Part: p, run: r, producer: q}
	r.mu.Lock()
	r.workers = append(r.workers, w)
	r.mu.Unlock()
	return w.Run, nil
}

// Run produces and consumes until ctx ends.
func (w *QueueWorker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { w.produce(ctx) })
	for life := 0; ctx.Err() == nil; life++ {
		w.live(ctx, life)
	}
	wg.Wait()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = w.producer.Close(cctx)
}

// produce puts items until ctx ends.
func (w *QueueWorker) produce(ctx context.Context) {
	rng := rand.New(rand.NewPCG(w.Seed^0x9e37, uint64(w.Who)))
	for sleep(ctx, time.Duration(30+rng.IntN(60))*time.Millisecond) {
		w.putOne(ctx)
	}
}

// putOne puts the next item, unless paused, and records its outcome.
func (w *QueueWorker) putOne(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paused {
		return
	}
	w.n++
	item := fmt.Sprintf("%s-%05d", w.Name(), w.n)
	pctx, cancel := context.WithTimeout(ctx, 2*w.Session)
	err := w.producer.Put(pctx, []byte(item))
	cancel()
	w.run.mu.Lock()
	defer w.run.mu.Unlock()
	switch {
	case err == nil:
		w.run.put[item] = true
	case errors.Is(err, queue.ErrMaybeApplied):
		w.run.maybe[item] = true
	default:
		w.run.failed[item] = true
	}
}

// Pause stops the puts; it returns once the one under way has returned.
func (w *QueueWorker) Pause() {
	w.mu.Lock()
	w.paused = true
	w.mu.Unlock()
}

// errKilled is what a killed incarnation's handler returns.
var errKilled = errors.New("chaos: consumer killed")

// live runs one consumer incarnation until ctx ends or it is killed.
func (w *QueueWorker) live(ctx context.Context, life int) {
	ks := &killSwitch{}
	c, err := w.NewClient(ctx, ks.wrap)
	if err != nil {
		w.Timeline.Add(w.Name(), fmt.Sprintf("consumer %d: no client: %v", life, err))
		sleep(ctx, 100*time.Millisecond)
		return
	}
	w.run.mu.Lock()
	w.run.lives++
	w.run.mu.Unlock()
	if s := c.Session(); s != nil {
		w.Timeline.Add(w.Name(), fmt.Sprintf("consumer %d: session=0x%x", life, uint64(s.ID())))
	}
	q, err := queue.New(c, QueueItems, queueOpts...)
	if err != nil {
		w.History.Problem(w.Who, err.Error())
		_ = c.Close()
		return
	}
	events, stopEvents := q.Events()
	noted := make(chan struct{})
	go func() {
		defer close(noted)
		for ev := range events {
			w.Timeline.Add(w.Name(), fmt.Sprintf("consumer %d: %v", life, ev))
			w.run.mu.Lock()
			w.run.recent = append(w.run.recent, fmt.Sprintf("%s/%d %s %v", w.Name(), life, time.Now().Format("15:04:05.000"), ev))
			if len(w.run.recent) > 20 {
				w.run.recent = w.run.recent[1:]
			}
			w.run.mu.Unlock()
		}
	}()
	cctx, cancel := context.WithCancel(ctx)
	killed := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- q.Consume(cctx, w.handler(life, ks, killed)) }()
	var err2 error
	select {
	case <-killed:
	case <-ctx.Done():
	case err2 = <-done:
		done <- err2
		if ctx.Err() == nil {
			w.History.Problem(w.Who, fmt.Sprintf("consumer %d: Consume returned %v", life, err2))
		}
	}
	cancel()
	if isClosed(killed) {
		_ = c.Close() // a dead process does nothing more: what it held goes with its session
	}
	<-done
	qctx, qcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	_ = q.Close(qctx)
	qcancel()
	stopEvents()
	<-noted
	_ = c.Close()
}

// handler is incarnation life's handler (see QueueWorker).
func (w *QueueWorker) handler(life int, ks *killSwitch, killed chan struct{}) queue.Handler {
	rng := rand.New(rand.NewPCG(w.Seed^uint64(life)<<20, uint64(w.Who)))
	return func(hctx context.Context, it *queue.Item) error {
		item := string(it.Data)
		op := w.History.InvokeAs(w.Who, "take", 1)
		op.Granted(time.Now(), it.Token)
		defer op.Unlocking()
		w.run.mu.Lock()
		w.run.handled[item]++
		w.run.mu.Unlock()
		if rng.IntN(25) == 0 && time.Now().Before(w.LongUntil) && ks.kill() {
			w.run.mu.Lock()
			w.run.kills++
			w.run.mu.Unlock()
			w.Timeline.Add(w.Name(), fmt.Sprintf("consumer %d KILLED holding %s", life, item))
			close(killed)
			<-hctx.Done()
			return errKilled
		}
		hold := time.Duration(1+rng.IntN(10)) * time.Millisecond
		if rng.IntN(20) == 0 {
			hold = w.Session/3 + time.Duration(rng.Int64N(int64(2*w.Session)))
			hold = clipHold(hold, time.Until(w.LongUntil))
		}
		t := time.NewTimer(hold)
		defer t.Stop()
		select {
		case <-t.C:
		case <-hctx.Done():
			if rng.IntN(2) == 0 {
				return hctx.Err()
			}
		}
		return it.CommitWith(&zk.CreateRequest{Path: QueueDone + "/" + item + "-",
			Data: fmt.Appendf(nil, "%s/%d", w.Name(), life), Flags: zk.FlagSequence})
	}
}

// killSwitch is a dialer wrapper that can kill an incarnation: its
// connections close and it dials no more.
type killSwitch struct {
	mu    sync.Mutex
	dead  bool
	conns []net.Conn
}

func (k *killSwitch) wrap(d client.Dialer) client.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		k.mu.Lock()
		dead := k.dead
		k.mu.Unlock()
		if dead {
			return nil, errKilled
		}
		conn, err := d(network, address, timeout)
		if err != nil {
			return nil, err
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.dead {
			_ = conn.Close()
			return nil, errKilled
		}
		k.conns = append(k.conns, conn)
		return conn, nil
	}
}

// kill closes every connection and refuses every dial from now on; false
// if it was killed already.
func (k *killSwitch) kill() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return false
	}
	k.dead = true
	for _, c := range k.conns {
		_ = c.Close()
	}
	return true
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// queueDrainStuck is how long Settle waits for the consumers to take one
// more of the items left once the puts are paused (items held by a killed
// consumer go once its session expires), and queueDrainWithin how long in
// all.
const (
	queueDrainStuck  = 15 * time.Second
	queueDrainWithin = 90 * time.Second
)

// Settle pauses the puts, waits until the consumers have taken every item,
// and checks the records item by item: each item whose Put succeeded was
// recorded exactly once, each whose Put may have been applied at most
// once, none whose Put failed, and nothing else. Then it deletes the
// records, which the scenario wants gone.
func (r *QueueRun) Settle(ctx context.Context, checker *client.Client) []Unsettled {
	r.mu.Lock()
	workers := slices.Clone(r.workers)
	r.mu.Unlock()
	for _, w := range workers {
		w.Pause()
	}
	var out []Unsettled
	bad := func(format string, args ...any) { out = append(out, Unsettled{Problem: fmt.Sprintf(format, args...)}) }
	start := time.Now()
	least, progress := -1, time.Now()
	for {
		items, err1 := childrenOrNone(ctx, checker, QueueItems)
		locks, err2 := childrenOrNone(ctx, checker, QueueLocks)
		if err := errors.Join(err1, err2); err != nil {
			bad("list the queue: %v", err)
			return out
		}
		if len(items) == 0 && len(locks) == 0 {
			break
		}
		if least < 0 || len(items)+len(locks) < least {
			least, progress = len(items)+len(locks), time.Now()
		}
		if time.Since(progress) > queueDrainStuck || time.Since(start) > queueDrainWithin || !sleep(ctx, 100*time.Millisecond) {
			held := map[string]bool{}
			for range 40 { // a second's samples: which locks come and go, and whose
				ls, _ := childrenOrNone(ctx, checker, QueueLocks)
				for _, l := range ls {
					data, st, err := checker.Get(ctx, QueueLocks+"/"+l)
					if err == nil {
						held[fmt.Sprintf("%s (session 0x%x, czxid %d, data %q)", l, uint64(st.EphemeralOwner), st.Czxid, data)] = true
					}
				}
				sleep(ctx, 25*time.Millisecond)
			}
			r.mu.Lock()
			recent := slices.Clone(r.recent)
			r.mu.Unlock()
			bad("%d items and %d locks left after %v (no progress for %v): %v, locks %v; the consumers' last events: %v",
				len(items), len(locks), time.Since(start).Round(time.Second), time.Since(progress).Round(time.Second), first(items, 5), slices.Sorted(maps.Keys(held)), recent)
			return out
		}
	}
	recs, err := childrenOrNone(ctx, checker, QueueDone)
	if err != nil {
		bad("list the records: %v", err)
		return out
	}
	by := map[string][]string{}
	for _, k := range recs {
		data, _, err := checker.Get(ctx, QueueDone+"/"+k)
		if err != nil {
			bad("read record %s: %v", k, err)
			continue
		}
		item := k[:max(strings.LastIndexByte(k, '-'), 0)]
		by[item] = append(by[item], string(data))
	}
	r.mu.Lock()
	t := &r.settled
	t.Put, t.Maybe, t.Failed, t.Kills, t.Incarnations = len(r.put), len(r.maybe), len(r.failed), r.kills, r.lives
	for item := range r.put {
		switch n := len(by[item]); n {
		case 1:
			t.Consumed++
		case 0:
			bad("item %s was put and never consumed", item)
		default:
			bad("item %s was consumed %d times, by %v", item, n, by[item])
		}
	}
	for item, who := range by {
		switch {
		case r.put[item]:
		case r.maybe[item] && len(who) == 1:
			t.MaybeConsumed++
		case r.maybe[item]:
			bad("item %s (its put may have been applied) was consumed %d times, by %v", item, len(who), who)
		case r.failed[item]:
			bad("item %s, whose put failed, was consumed by %v", item, who)
		default:
			bad("item %s was consumed by %v and never put", item, who)
		}
	}
	for _, n := range r.handled {
		if n > 1 {
			t.Redelivered++
		}
	}
	r.mu.Unlock()
	for i := 0; i < len(recs); i += 100 {
		var ops []any
		for _, k := range recs[i:min(i+100, len(recs))] {
			ops = append(ops, &zk.DeleteRequest{Path: QueueDone + "/" + k, Version: -1})
		}
		if _, err := checker.Multi(ctx, ops...); err != nil {
			bad("delete the records: %v", err)
			break
		}
	}
	return out
}

// childrenOrNone lists p; a missing node has none.
func childrenOrNone(ctx context.Context, c *client.Client, p string) ([]string, error) {
	kids, _, err := c.Children(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}

// first is the first n of s.
func first(s []string, n int) []string { return s[:min(n, len(s))] }

func init() {
	register(Workload{
		Recipe: "queue",
		Fresh: func() Workload {
			run := NewQueueRun()
			return Workload{
				Recipe:   "queue",
				Capacity: Capacity{Units: MaxParts}, // exactly once is checked item by item, in Settle
				Dirs:     []string{QueueDir},
				Start:    run.Start,
				Settle:   run.Settle,
			}
		},
	})
}
