package main

import (
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// The queue recipes measure items through one distributed queue: -workers
// producers and as many consumers, each with a session of its own. The
// consumers start first; each producer puts -warmup items, which are all
// consumed unmeasured, then -iters more, and the measurement runs from the
// first of those puts to the last item's consumption. Each item carries its
// producer, its number and its put time, so the line can say how long
// items waited and check that each came out exactly once:
//
//	recipe=queue workers=10 iters=500 items=5000 secs=3.20 items_per_s=1562.5 latency_p50_ms=2.10 latency_p99_ms=9.30 put_p50_ms=1.00 dups=0 lost=0 lock_safe=true
//
//	items          measured items (workers x iters)
//	items_per_s    items / secs
//	latency_p50/99 from an item's put call to its handler's start
//	put_p50_ms     of the measured put calls
//	dups, lost     items handed over twice, and never, of warm-up and
//	               measured ones: must be 0 (lost: unless -budget cut it)
//
//	queue          recipes/queue's Queue: Put, and Consume with a handler
//	               that returns at once
//	curator-queue  Curator 5.4's DistributedQueue with putInBackground(false)
//	               and QueueBuilder's default direct executor, in a java process
//	               (java/CuratorQueueBench.java, built into zkbench)
//
// -lock-safe (default true) gives both a lock path (Curator's lockPath):
// an item is removed only after its handler returned.
const (
	recipeQueue        = "queue"
	recipeCuratorQueue = "curator-queue"
)

var queueRecipeNames = []string{recipeQueue, recipeCuratorQueue}

func isQueueRecipe(name string) bool { return slices.Contains(queueRecipeNames, name) }

// queueFlags are the queue recipes' own flags.
type queueFlags struct {
	lockSafe bool
}

func (f *queueFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.lockSafe, "lock-safe", true, "queue recipes: give the queue a lock path (an item is removed after its handler)")
}

// check refuses the queue flags with another recipe (or -all).
func (f queueFlags) check(fs *flag.FlagSet, recipe string, all bool) error {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == "lock-safe" })
	if set && (all || !isQueueRecipe(recipe)) {
		return fmt.Errorf("-lock-safe only goes with -recipe %s", strings.Join(queueRecipeNames, "|"))
	}
	return nil
}

// queueResult is one queue run's measurement.
type queueResult struct {
	recipe     string
	workers    int
	iters      int
	lockSafe   bool
	items      int
	elapsed    time.Duration
	p50, p99   time.Duration
	put50      time.Duration
	dups, lost int
}

func (r queueResult) line() string {
	perSec := 0.0
	if s := r.elapsed.Seconds(); s > 0 {
		perSec = float64(r.items) / s
	}
	return fmt.Sprintf("recipe=%s workers=%d iters=%d items=%d secs=%.2f items_per_s=%.1f latency_p50_ms=%.2f latency_p99_ms=%.2f put_p50_ms=%.2f dups=%d lost=%d lock_safe=%v",
		r.recipe, r.workers, r.iters, r.items, r.elapsed.Seconds(), perSec, millis(r.p50), millis(r.p99), millis(r.put50), r.dups, r.lost, r.lockSafe)
}

// runQueueCmd runs one queue recipe and prints its line.
func runQueueCmd(ctx context.Context, e *env, cfg runConfig, f queueFlags, stdout io.Writer) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	dir, err := e.runDir(fmt.Sprintf("%s-w%d", cfg.recipe, cfg.workers))
	if err != nil {
		return err
	}
	var res queueResult
	if cfg.recipe == recipeCuratorQueue {
		res, err = runCuratorQueue(ctx, e, cfg, f, dir)
	} else {
		res, err = runGoQueue(ctx, e, cfg, f, dir)
	}
	if err != nil {
		return err
	}
	res.recipe, res.workers, res.iters, res.lockSafe = cfg.recipe, cfg.workers, cfg.iters, f.lockSafe
	_, err = fmt.Fprintln(stdout, res.line())
	return err
}

// benchItem is an item's bytes: producer, number, put time (UnixNano).
func benchItem(producer, n int, at time.Time) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(producer))
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	return binary.BigEndian.AppendUint64(b, uint64(at.UnixNano()))
}

// queueTally counts what the consumers got.
type queueTally struct {
	mu      sync.Mutex
	seen    map[uint64]int
	lat     []time.Duration
	measure bool // record latencies
	got     int
	want    int
	done    chan struct{} // closed once want items came
}

func (t *queueTally) add(data []byte) {
	now := time.Now()
	if len(data) != 16 {
		return
	}
	key := uint64(binary.BigEndian.Uint32(data))<<32 | uint64(binary.BigEndian.Uint32(data[4:]))
	at := time.Unix(0, int64(binary.BigEndian.Uint64(data[8:])))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[key]++
	if t.measure {
		t.lat = append(t.lat, now.Sub(at))
	}
	if t.got++; t.got == t.want {
		close(t.done)
	}
}

// expect makes the tally wait for n more items, measured or not.
func (t *queueTally) expect(n int, measure bool) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = make(chan struct{})
	t.want, t.measure = t.got+n, measure
	return t.done
}

// queueWorker is one session: a producer or a consumer.
type queueWorker struct {
	q     *queue.Queue
	close func()
}

func (w queueWorker) closer() func() { return w.close }

// runGoQueue measures recipes/queue.
func runGoQueue(ctx context.Context, e *env, cfg runConfig, f queueFlags, dir string) (queueResult, error) {
	var opts []queue.Option
	if f.lockSafe {
		opts = append(opts, queue.WithLockPath(dir+"/locks"))
	}
	opts = append(opts, queue.WithConsumerPath(dir+"/consumers"))
	tally := &queueTally{seen: map[uint64]int{}}
	cctx, stopConsumers := context.WithCancel(ctx)
	defer stopConsumers()
	var consuming sync.WaitGroup
	open := func(consume bool) func(context.Context, int) (queueWorker, error) {
		return func(ctx context.Context, _ int) (queueWorker, error) {
			c, err := startClient(ctx, e, cfg.session)
			if err != nil {
				return queueWorker{}, err
			}
			q, err := queue.New(c, dir+"/items", opts...)
			if err != nil {
				_ = c.Close()
				return queueWorker{}, err
			}
			w := queueWorker{q: q, close: func() {
				qctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = q.Close(qctx)
				_ = c.Close()
			}}
			if consume {
				consuming.Go(func() {
					_ = q.Consume(cctx, func(_ context.Context, it *queue.Item) error {
						tally.add(it.Data)
						return nil
					})
				})
			}
			return w, nil
		}
	}
	consumers, err := openWorkers(ctx, cfg.workers, open(true))
	if err != nil {
		return queueResult{}, err
	}
	defer func() {
		stopConsumers()
		consuming.Wait()
		closeWorkers(consumers)
	}()
	producers, err := openWorkers(ctx, cfg.workers, open(false))
	if err != nil {
		return queueResult{}, err
	}
	defer closeWorkers(producers)
	phase := func(first, n int, measure bool) ([]time.Duration, error) {
		done := tally.expect(cfg.workers*n, measure)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var puts []time.Duration
		var failed error
		for p, w := range producers {
			wg.Go(func() {
				for i := first; i < first+n; i++ {
					start := time.Now()
					if err := w.q.Put(ctx, benchItem(p, i, start)); err != nil {
						mu.Lock()
						failed = errors.Join(failed, err)
						mu.Unlock()
						return
					}
					if measure {
						mu.Lock()
						puts = append(puts, time.Since(start))
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if failed != nil {
			return nil, failed
		}
		return puts, waitItems(ctx, done, cfg.budget)
	}
	if cfg.warmup > 0 {
		if _, err := phase(0, cfg.warmup, false); err != nil {
			return queueResult{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	start := time.Now()
	puts, err := phase(cfg.warmup, cfg.iters, true)
	elapsed := time.Since(start)
	if err != nil && !errors.Is(err, errBudget) {
		return queueResult{}, err
	}
	tally.mu.Lock()
	defer tally.mu.Unlock()
	res := queueResult{items: tally.got - cfg.workers*cfg.warmup, elapsed: elapsed}
	slices.Sort(tally.lat)
	slices.Sort(puts)
	res.p50, res.p99, res.put50 = percentile(tally.lat, 50), percentile(tally.lat, 99), percentile(puts, 50)
	for p := range cfg.workers {
		for i := range cfg.warmup + cfg.iters {
			switch n := tally.seen[uint64(p)<<32|uint64(i)]; {
			case n == 0:
				res.lost++
			case n > 1:
				res.dups += n - 1
			}
		}
	}
	return res, nil
}

// waitItems waits until done closes, ctx ends or (when positive) budget
// passes (then errBudget).
func waitItems(ctx context.Context, done <-chan struct{}, budget time.Duration) error {
	var timeout <-chan time.Time
	if budget > 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-done:
		return nil
	case <-timeout:
		return errBudget
	case <-ctx.Done():
		return ctx.Err()
	}
}

// curatorQueueSource is java/CuratorQueueBench.java, built into the command
// so that it runs from any directory.
//
//go:embed java/CuratorQueueBench.java
var curatorQueueSource []byte

const curatorQueueClass = "CuratorQueueBench"

// runCuratorQueue measures Curator's DistributedQueue on dir in a java
// process and reads its result line.
func runCuratorQueue(ctx context.Context, e *env, cfg runConfig, f queueFlags, dir string) (queueResult, error) {
	cp, err := buildJavaBench(ctx, curatorQueueClass, curatorQueueSource)
	if err != nil {
		return queueResult{}, err
	}
	lock := "-"
	if f.lockSafe {
		lock = dir + "/locks"
	}
	stdout, _, err := runJava(ctx, cp, curatorQueueClass, "-Xmx512m",
		strings.Join(e.servers, ","), dir+"/items", lock, strconv.Itoa(cfg.workers), strconv.Itoa(cfg.iters),
		strconv.Itoa(cfg.warmup), javaBudget(cfg.budget), strconv.FormatInt(cfg.session.Milliseconds(), 10))
	if err != nil {
		return queueResult{}, err
	}
	line, ok := findResultLine(stdout, recipeCuratorQueue)
	if !ok {
		return queueResult{}, fmt.Errorf("java %s printed no result line:\n%s", curatorQueueClass, stdout)
	}
	res := queueResult{
		items:   int(line.num("items")),
		elapsed: time.Duration(line.num("secs") * float64(time.Second)),
		p50:     line.ms("latency_p50_ms"),
		p99:     line.ms("latency_p99_ms"),
		put50:   line.ms("put_p50_ms"),
		dups:    int(line.num("dups")),
		lost:    int(line.num("lost")),
	}
	if err := line.err(); err != nil {
		return queueResult{}, fmt.Errorf("java %s's line %q: %w", curatorQueueClass, line.text, err)
	}
	return res, nil
}
