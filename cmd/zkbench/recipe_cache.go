package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// The cache recipes measure a tree cache, not a lock: how long a fresh
// session's cache takes to load a tree, how long a write takes to reach
// the caches watching it, and what a cached node costs in heap. They have
// flags, a driver and a result line of their own.
const (
	recipeCache        = "cache"         // recipes/cache
	recipeCuratorCache = "curator-cache" // Curator 5.4's CuratorCache (java)
)

var cacheRecipeNames = []string{recipeCache, recipeCuratorCache}

func isCacheRecipe(name string) bool { return slices.Contains(cacheRecipeNames, name) }

// What a cache run measures (-measure).
const (
	measureInit    = "init"    // time to initialized
	measureLatency = "latency" // setData -> Changed event
	measureHeap    = "heap"    // heap per cached node
)

var cacheMeasures = []string{measureInit, measureLatency, measureHeap}

// cacheFlags are the cache recipes' own flags. The shared ones mean:
// -workers the caches on the path, each with a session of its own
// (latency; init and heap load one cache at a time); -iters the measured
// loads (init) or changes (latency); -warmup the unmeasured ones before.
type cacheFlags struct {
	measure  string
	nodes    int  // leaves of the tree
	fanout   int  // leaves per parent
	dataSize int  // bytes of data on every node of the tree
	noData   bool // cache stats only (cache.WithoutData; Curator: dataNotCached)
}

func (f *cacheFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.measure, "measure", measureInit, "cache recipes: what to measure: "+strings.Join(cacheMeasures, ", "))
	fs.IntVar(&f.nodes, "nodes", 1000, "cache recipes: leaves of the tree, -fanout under each parent")
	fs.IntVar(&f.fanout, "fanout", 100, "cache recipes: children per parent node")
	fs.IntVar(&f.dataSize, "datasize", 100, "cache recipes: bytes of data on every node of the tree")
	fs.BoolVar(&f.noData, "nodata", false, "cache recipes: cache stats only, not data")
}

// check rejects the cache flags given to another recipe, and bad values,
// and sets the cache recipes' own defaults of -iters and -warmup when they
// were not given: init 5 and 2 loads, latency 500 and 100 changes (heap
// loads once).
func (f *cacheFlags) check(fs *flag.FlagSet, run *runConfig, all bool) error {
	var given []string
	itersSet, warmupSet := false, false
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "measure", "nodes", "fanout", "datasize", "nodata":
			given = append(given, "-"+fl.Name)
		case "iters":
			itersSet = true
		case "warmup":
			warmupSet = true
		}
	})
	isCache := !all && isCacheRecipe(run.recipe)
	switch {
	case len(given) > 0 && !isCache:
		return fmt.Errorf("%s only go with -recipe %s", strings.Join(given, " "), strings.Join(cacheRecipeNames, "|"))
	case !isCache:
		return nil
	case !slices.Contains(cacheMeasures, f.measure):
		return fmt.Errorf("-measure must be one of %v, got %q", cacheMeasures, f.measure)
	case f.nodes < 1 || f.nodes > maxCacheLeaves:
		return fmt.Errorf("-nodes must be in [1, %d], got %d", maxCacheLeaves, f.nodes)
	case f.fanout < 1:
		return fmt.Errorf("-fanout must be at least 1, got %d", f.fanout)
	case f.dataSize < 0 || f.dataSize > 1<<16:
		return fmt.Errorf("-datasize must be in [0, 65536], got %d", f.dataSize)
	}
	iters, warmup := 5, 2
	switch f.measure {
	case measureLatency:
		iters, warmup = 500, 100
	case measureHeap:
		iters, warmup = 1, 0
	}
	if !itersSet {
		run.iters = iters
	}
	if !warmupSet {
		run.warmup = warmup
	}
	return nil
}

// maxCacheLeaves bounds -nodes.
const maxCacheLeaves = 1_000_000

// cacheTree is the tree a cache run loads: under the run's directory (the
// caches' root), parents p0, p1, ... each with up to fanout children c0,
// c1, ..., leaves in all; every node but the root holds dataSize bytes.
type cacheTree struct {
	root     string
	leaves   int
	fanout   int
	dataSize int
}

func (t cacheTree) parents() int { return (t.leaves + t.fanout - 1) / t.fanout }

// nodes is the number of nodes a cache of the whole tree holds.
func (t cacheTree) nodes() int { return 1 + t.parents() + t.leaves }

func (t cacheTree) parent(i int) string { return fmt.Sprintf("%s/p%d", t.root, i) }

// leaf is the path of leaf i, in the order the Java side uses too.
func (t cacheTree) leaf(i int) string {
	return fmt.Sprintf("%s/c%d", t.parent(i/t.fanout), i%t.fanout)
}

// treeBatch is how many creates or deletes one multi carries.
const treeBatch = 500

// create makes the tree with multis of treeBatch creates, several in flight
// at once on conn.
func (t cacheTree) create(ctx context.Context, conn *zk.Conn) error {
	data := make([]byte, t.dataSize)
	for i := range data {
		data[i] = 'x'
	}
	create := func(p string) any { return &zk.CreateRequest{Path: p, Data: data, Acl: worldACL} }
	var ops []any
	for i := range t.parents() {
		ops = append(ops, create(t.parent(i)))
	}
	if err := multiBatches(ctx, conn, ops); err != nil {
		return fmt.Errorf("create the tree's parents: %w", err)
	}
	ops = ops[:0]
	for i := range t.leaves {
		ops = append(ops, create(t.leaf(i)))
	}
	if err := multiBatches(ctx, conn, ops); err != nil {
		return fmt.Errorf("create the tree's leaves: %w", err)
	}
	return nil
}

// remove deletes the tree below its root as create made it (deleteTree's
// one request at a time would take a disk write per node).
func (t cacheTree) remove(ctx context.Context, conn *zk.Conn) error {
	var ops []any
	for i := range t.leaves {
		ops = append(ops, &zk.DeleteRequest{Path: t.leaf(i), Version: -1})
	}
	if err := multiBatches(ctx, conn, ops); err != nil {
		return fmt.Errorf("delete the tree's leaves: %w", err)
	}
	ops = ops[:0]
	for i := range t.parents() {
		ops = append(ops, &zk.DeleteRequest{Path: t.parent(i), Version: -1})
	}
	return multiBatches(ctx, conn, ops)
}

// multiBatches runs ops in multis of treeBatch, four in flight at once.
func multiBatches(ctx context.Context, conn *zk.Conn, ops []any) error {
	sem := make(chan struct{}, 4)
	errs := make(chan error, (len(ops)+treeBatch-1)/treeBatch)
	var wg sync.WaitGroup
	for start := 0; start < len(ops); start += treeBatch {
		batch := ops[start:min(start+treeBatch, len(ops))]
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, err := conn.Multi(batch...); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// cacheResult is one cache run's measurement; which fields are set depends
// on measure.
type cacheResult struct {
	recipe   string
	measure  string
	nodes    int // nodes of one cache's view
	dataSize int
	withData bool
	caches   int
	iters    int // measured loads (init) or changes (latency)

	// init: the measured loads' median, fastest and slowest, and the very
	// first load of the process (a warm-up one when -warmup > 0: for
	// Curator, a fresh JVM's).
	initP50, initMin, initMax, cold time.Duration
	// cpu is the median of the process's CPU time (user + system, every
	// thread) over the measured loads: the client's cost of a load, which
	// the machine's load does not stretch as it does the wall clock.
	cpu time.Duration
	// latency: from the setData call to each cache's Changed event;
	// serverWatches is the server's count of data watches with every cache
	// loaded (four-letter word wchs, which leaves child watches out), -1
	// when the server would not say.
	events        int
	p50, p99      time.Duration
	serverWatches int
	// heap: heap in use after a GC, with the cache loaded minus before it
	// started, per cached node; table is the part that stays when the
	// cache is closed but its session lives on (go-zookeeper's watcher
	// table), -1 where not measured (Java).
	heapBytes     int64
	perNode       float64
	tablePerNode  float64
	heapInitTaken time.Duration
}

// line renders the result as the one line zkbench prints per run.
func (r cacheResult) line() string {
	head := fmt.Sprintf("recipe=%s measure=%s nodes=%d data_bytes=%d cache_data=%t",
		r.recipe, r.measure, r.nodes, r.dataSize, r.withData)
	switch r.measure {
	case measureInit:
		return head + fmt.Sprintf(" runs=%d init_p50_ms=%.2f init_min_ms=%.2f init_max_ms=%.2f cold_ms=%.2f cpu_ms=%.2f",
			r.iters, millis(r.initP50), millis(r.initMin), millis(r.initMax), millis(r.cold), millis(r.cpu))
	case measureLatency:
		return head + fmt.Sprintf(" caches=%d changes=%d events=%d event_p50_ms=%.3f event_p99_ms=%.3f server_watches=%d",
			r.caches, r.iters, r.events, millis(r.p50), millis(r.p99), r.serverWatches)
	default:
		return head + fmt.Sprintf(" heap_bytes=%d heap_per_node_bytes=%.0f watch_table_per_node_bytes=%.0f init_ms=%.2f",
			r.heapBytes, r.perNode, r.tablePerNode, millis(r.heapInitTaken))
	}
}

// runCacheCmd is zkbench -recipe cache|curator-cache: it creates the tree
// in a fresh directory, measures, prints the line and removes the tree.
func runCacheCmd(ctx context.Context, e *env, cfg runConfig, f cacheFlags, stdout io.Writer) error {
	res, err := runCache(ctx, e, cfg, f)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, res.line())
	return err
}

// runCache runs one cache measurement.
func runCache(ctx context.Context, e *env, cfg runConfig, f cacheFlags) (cacheResult, error) {
	if err := cfg.validate(); err != nil {
		return cacheResult{}, err
	}
	dir, err := e.runDir(fmt.Sprintf("%s-%s-n%d", cfg.recipe, f.measure, f.nodes))
	if err != nil {
		return cacheResult{}, err
	}
	tree := cacheTree{root: dir, leaves: f.nodes, fanout: f.fanout, dataSize: f.dataSize}
	if err := tree.create(ctx, e.admin); err != nil {
		return cacheResult{}, err
	}
	defer func() {
		if err := tree.remove(context.WithoutCancel(ctx), e.admin); err != nil {
			e.logger.Warn("could not remove the cache tree", "path", dir, "err", err)
		}
	}()
	if cfg.recipe == recipeCuratorCache {
		return runCuratorCache(ctx, e, cfg, f, tree)
	}
	switch f.measure {
	case measureInit:
		return goCacheInit(ctx, e, cfg, f, tree)
	case measureLatency:
		return goCacheLatency(ctx, e, cfg, f, tree)
	default:
		return goCacheHeap(ctx, e, cfg, f, tree)
	}
}

// cacheOpts are the cache options for f.
func cacheOpts(f cacheFlags) []cache.Option {
	if f.noData {
		return []cache.Option{cache.WithoutData()}
	}
	return nil
}

// loadCache makes and starts a cache of the tree on c and waits until it is
// initialized, checking it holds the whole tree.
func loadCache(ctx context.Context, c *client.Client, f cacheFlags, tree cacheTree) (*cache.Cache, error) {
	ch, err := cache.New(c, tree.root, cacheOpts(f)...)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := ch.Start(wctx); err != nil { // returns once initialized
		_ = ch.Close(ctx)
		return nil, fmt.Errorf("start the cache: %w", err)
	}
	if n := ch.Len(); n != tree.nodes() {
		_ = ch.Close(ctx)
		return nil, fmt.Errorf("initialized cache holds %d nodes, want %d", n, tree.nodes())
	}
	return ch, nil
}

// goCacheInit measures the time from a fresh session's cache's Start to
// Initialized, -warmup unmeasured loads then -iters measured ones, each on a
// new session (its connection is set up before the clock starts).
func goCacheInit(ctx context.Context, e *env, cfg runConfig, f cacheFlags, tree cacheTree) (cacheResult, error) {
	var times, cpus []time.Duration
	var cold time.Duration
	for i := range cfg.warmup + cfg.iters {
		c, err := startClient(ctx, e, cfg.session)
		if err != nil {
			return cacheResult{}, err
		}
		cpu0 := cpuTime()
		start := time.Now()
		ch, err := loadCache(ctx, c, f, tree)
		took := time.Since(start)
		cpu := cpuTime() - cpu0
		if err == nil {
			err = ch.Close(ctx)
		}
		_ = c.Close()
		if err != nil {
			return cacheResult{}, err
		}
		if i == 0 {
			cold = took
		}
		if i >= cfg.warmup {
			times = append(times, took)
			cpus = append(cpus, cpu)
		}
	}
	slices.Sort(times)
	slices.Sort(cpus)
	return cacheResult{
		recipe: cfg.recipe, measure: measureInit, nodes: tree.nodes(), dataSize: tree.dataSize, withData: !f.noData,
		iters: cfg.iters, initP50: percentile(times, 50), initMin: times[0], initMax: times[len(times)-1], cold: cold,
		cpu: percentile(cpus, 50),
	}, nil
}

// change is one write the latency run waits for: every cache's Changed
// event for path at version records its delay from start.
type change struct {
	path    string
	version int32
	start   time.Time
	mu      sync.Mutex
	samples []time.Duration
	left    int
	done    chan struct{}
}

func (c *change) seen(ev cache.Event) {
	if ev.Type != cache.Changed || ev.Node.Path != c.path || ev.Node.Stat.Version != c.version {
		return
	}
	took := time.Since(c.start)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.samples = append(c.samples, took)
	if c.left--; c.left == 0 {
		close(c.done)
	}
}

// changeTimeout bounds the wait for every cache's event of one change.
const changeTimeout = 30 * time.Second

// goCacheLatency opens -workers caches of the tree, each on a session of
// its own, then sets the leaves' data one change at a time on the admin
// session (bare go-zookeeper), round robin over the leaves, and measures
// from each setData call to each cache's Changed event, as its reader
// gets it. The next change starts once every cache has seen the last.
func goCacheLatency(ctx context.Context, e *env, cfg runConfig, f cacheFlags, tree cacheTree) (cacheResult, error) {
	var cur atomic.Pointer[change]
	ws, err := openWorkersAtOnce(ctx, cfg.workers, 8, func(ctx context.Context, _ int) (cacheWorker, error) {
		var w cacheWorker
		c, err := startClient(ctx, e, cfg.session)
		if err != nil {
			return w, err
		}
		w.c = c
		ch, err := cache.New(c, tree.root, cacheOpts(f)...)
		if err != nil {
			return w, err
		}
		events, _ := ch.Events() // closed by the cache's Close
		go func() {
			for ev := range events {
				if x := cur.Load(); x != nil {
					x.seen(ev)
				}
			}
		}()
		w.ch = ch               // closed by the worker's closer, also when Start fails
		return w, ch.Start(ctx) // returns once initialized
	})
	if err != nil {
		return cacheResult{}, err
	}
	defer closeWorkers(ws)
	watches := serverWatches(ctx, e.servers[0])
	versions := make([]int32, tree.leaves)
	data := make([]byte, tree.dataSize)
	var samples []time.Duration
	for i := range cfg.warmup + cfg.iters {
		leaf := i % tree.leaves
		for k := range data {
			data[k] = byte('a' + i%26)
		}
		x := &change{path: tree.leaf(leaf), version: versions[leaf] + 1, left: cfg.workers, done: make(chan struct{})}
		cur.Store(x)
		x.start = time.Now()
		if _, err := e.admin.Set(x.path, data, versions[leaf]); err != nil {
			return cacheResult{}, fmt.Errorf("set %s: %w", x.path, err)
		}
		versions[leaf]++
		t := time.NewTimer(changeTimeout)
		select {
		case <-x.done:
			t.Stop()
		case <-t.C:
			return cacheResult{}, fmt.Errorf("change %d of %s: not every cache saw it within %v", i, x.path, changeTimeout)
		case <-ctx.Done():
			t.Stop()
			return cacheResult{}, ctx.Err()
		}
		if i >= cfg.warmup {
			x.mu.Lock()
			samples = append(samples, x.samples...)
			x.mu.Unlock()
		}
	}
	slices.Sort(samples)
	return cacheResult{
		recipe: cfg.recipe, measure: measureLatency, nodes: tree.nodes(), dataSize: tree.dataSize, withData: !f.noData,
		caches: cfg.workers, iters: cfg.iters, events: len(samples),
		p50: percentile(samples, 50), p99: percentile(samples, 99), serverWatches: watches,
	}, nil
}

// cacheWorker is one cache of the latency run and its session.
type cacheWorker struct {
	c  *client.Client
	ch *cache.Cache
}

func (w cacheWorker) closer() func() {
	return func() {
		if w.ch != nil {
			_ = w.ch.Close(context.Background()) // bounded: at most a second
		}
		if w.c != nil {
			_ = w.c.Close()
		}
	}
}

// totalWatches finds the count in the answer to wchs.
var totalWatches = regexp.MustCompile(`Total watches:\s*(\d+)`)

// serverWatches asks the server at addr for its number of data watches
// (the four-letter word wchs, which the server must allow; ZooKeeper 3.8
// counts no child watches there), or -1.
func serverWatches(ctx context.Context, addr string) int {
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return -1
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("wchs")); err != nil {
		return -1
	}
	out, _ := io.ReadAll(conn)
	m := totalWatches.FindSubmatch(out)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		return -1
	}
	return n
}

// heapInUse is the heap in use after two full collections.
func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// goCacheHeap measures the heap one loaded cache holds: heap in use after
// a GC with the cache initialized, minus before its Start (the session
// already up), divided by the cached nodes. go-zookeeper's watcher table is
// part of it (the cache's one-shot watches live there: two entries per node,
// a data and a child watch, each a one-slot slice holding a buffered
// channel); its share is what stays after the cache closes while the
// session lives on, since ZooKeeper 3.8 gives go-zookeeper no way to drop a
// watch.
func goCacheHeap(ctx context.Context, e *env, cfg runConfig, f cacheFlags, tree cacheTree) (cacheResult, error) {
	c, err := startClient(ctx, e, cfg.session)
	if err != nil {
		return cacheResult{}, err
	}
	defer c.Close()
	before := heapInUse()
	start := time.Now()
	ch, err := loadCache(ctx, c, f, tree)
	took := time.Since(start)
	if err != nil {
		return cacheResult{}, err
	}
	loaded := heapInUse()
	runtime.KeepAlive(ch)
	if err := ch.Close(ctx); err != nil {
		return cacheResult{}, err
	}
	closed := heapInUse()
	n := float64(tree.nodes())
	return cacheResult{
		recipe: cfg.recipe, measure: measureHeap, nodes: tree.nodes(), dataSize: tree.dataSize, withData: !f.noData,
		heapBytes: loaded - before, perNode: float64(loaded-before) / n, tablePerNode: float64(closed-before) / n,
		heapInitTaken: took,
	}, nil
}
