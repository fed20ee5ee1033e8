// Command zkbench measures distributed locks on a real ZooKeeper.
//
//	zkbench -recipe mutex|gozk|naive|floor|curator-mutex|multilock|curator-multilock -workers N -iters M [-warmup K] [-session 10s] [-budget D] [-zk ADDR | -backend B]
//	zkbench -recipe rwlock|curator-rwlock -readers R -writers W -iters M ...
//	zkbench -recipe semaphore|semfloor|curator-semaphore -workers N -max L -iters M ...
//	zkbench -recipe latch|run|electfloor|requeuefloor|curator-latch|curator-run|latchcrash -participants P -iters M ...
//	zkbench -recipe cache|curator-cache -measure init|latency|heap -nodes N [-fanout F] [-datasize B] [-nodata] [-workers C] -iters M ...
//	zkbench -recipe counter|curator-counter -workers N -iters M [-retry-base 5ms] [-retries 10] [-lock] ...
//	zkbench -recipe queue|curator-queue -workers N -iters M [-lock-safe=false] ...
//	zkbench -recipe queue-listing -iters MAX_ITEMS ...
//	zkbench -all [-big] [-zk ADDR | -backend B]
//
// -count adds req_per_op to a run's line: the requests the workers sent per
// measured cycle (per term for run), by opcode, counted on their side of the
// connection, e.g. req_per_op=create:1.00,getChildren:1.00,delete:1.00.
// The cache and counter recipes refuse it: their lines have no req_per_op.
//
// Every worker has a ZooKeeper session of its own, as separate processes
// would, and loops lock -> check -> unlock: K warm-up iterations that are not
// measured, then M measured ones. A run prints exactly one line on stdout:
//
//	recipe=mutex workers=10 iters=1000 ops=10000 secs=12.30 ops_per_s=812.0 handoff_p50_ms=0.90 handoff_p99_ms=3.10 violations=0 events_per_release=1.00
//
//	ops                 measured lock/unlock cycles: workers x iters, or fewer
//	                    when -budget cut the measurement short
//	handoff_p50/p99_ms  from the start of a release (just before Unlock) to the
//	                    moment the next holder's Lock returns, for holders that
//	                    were already waiting when the release began; 0 when no
//	                    handoff happened (one worker)
//	violations          entries into the critical section that found another
//	                    holder inside (must be 0)
//	events_per_release  watch events delivered to waiters per release
//
// The recipes:
//
//	mutex   zkrecipes' recipes/mutex: each waiter watches its predecessor only
//	gozk    go-zookeeper's zk.Lock, for comparison
//	naive   the herd lock: every waiter watches the lock directory's children,
//	        so every change wakes every waiter, which lists the directory again
//	floor   no lock at all: create (ephemeral sequential) + getChildren +
//	        delete with the bare client, uncontended; with several workers each
//	        works on a path of its own. It is the server's cost of one cycle.
//	rwlock  readers and writers of recipes/rwlock (-readers R -writers W)
//	multilock  zkrecipes' mutex.Multi over the mutexes of three paths
//	        (dir/p0, dir/p1, dir/p2): a cycle takes and releases all three
//	curator-mutex, curator-rwlock, curator-multilock
//	        Curator 5.4's InterProcessMutex, InterProcessReadWriteLock and
//	        InterProcessMultiLock (of the same three paths, in that order)
//	        in a java process (java/CuratorLockBench.java, built into
//	        zkbench, compiled with javac on first use), measured the same
//	        way; their lines have no events_per_release
//
// The semaphore recipes loop acquire -> count in and out -> release at once
// on a semaphore of -max L leases, and print a line of their own:
//
//	recipe=semaphore workers=10 max=5 iters=100 ops=1000 secs=1.60 ops_per_s=625.0 acquire_p50_ms=12.10 acquire_p99_ms=30.20 max_inside=5 violations=0 server_max_leases=6
//
//	acquire_p50/p99_ms  from calling acquire to holding the lease
//	max_inside          the most workers holding a lease at once, by the
//	                    bench's own counter
//	violations          entries that found more than L holders inside, plus
//	                    1 if a sampler listing leases/ on the server every
//	                    20 ms ever saw more than L+1 nodes (one acquirer's
//	                    waiting node may be there beside L holders)
//	server_max_leases   the most lease nodes that sampler saw; -1: none taken
//
//	semaphore          zkrecipes' recipes/semaphore: Acquire, then Release
//	semfloor           the same requests without the locks mutex and without
//	                   waiting: create an ephemeral sequential node in
//	                   leases/, list leases/, delete it. It enforces no limit
//	                   (max_inside may exceed L; violations is not counted).
//	curator-semaphore  Curator 5.4's InterProcessSemaphoreV2 in a java process
//	                   (java/CuratorSemaphoreBench.java, built into zkbench
//	                   and compiled with javac on first use): acquire, then
//	                   returnLease; needs Debian's Curator jars
//
// The election recipes measure leadership changes, each participant with a
// session of its own, -warmup unmeasured terms then -iters measured ones,
// and print a line of their own:
//
//	recipe=latch participants=5 iters=200 terms=200 secs=1.10 terms_per_s=181.8 failover_p50_ms=1.90 failover_p99_ms=4.20 violations=0
//
//	terms               measured terms (failovers for latch and the floors)
//	terms_per_s         terms / secs (latch: failover + the rejoin's Start)
//	failover_p50/p99_ms latch: from the leader's Close call to the next
//	                    participant's Terms delivering its term; run: from a
//	                    lead function's return to the next lead's call;
//	                    electfloor: from the delete call to the watch event
//	                    (requeuefloor: from the multi call)
//	failover_mean_ms    the Go recipes': the failovers' mean
//	violations          a term that started while another's context was
//	                    live, or whose token was not above the previous
//	                    term's (Curator: two leaders by the java side's own
//	                    counter; no tokens)
//
//	latch          recipes/election Latch: P latches; the leader closes its
//	               latch, then joins again at the back with a new one
//	run            recipes/election Run: P participants whose lead function
//	               returns at once
//	electfloor     bare go-zookeeper, two sessions: B reads A's ephemeral
//	               node with a watch; A deletes it (-participants ignored)
//	requeuefloor   electfloor, but A deletes the node in one multi with the
//	               create of its next node, as a term of run ends
//	curator-latch  Curator 5.4's LeaderLatch, as latch (java, embedded
//	               java/CuratorElectionBench.java)
//	curator-run    Curator 5.4's LeaderSelector with autoRequeue and a
//	               takeLeadership that returns at once, as run
//	latchcrash     as latch, but the leader crashes instead of resigning:
//	               its connection goes silent and it cannot dial again, so
//	               the next term waits for the server to expire its session;
//	               failover is from the crash to the next term, and the line
//	               adds session_ms, the negotiated session timeout (use a
//	               short -session: every crash costs about one)
//
// The cache recipes measure a tree cache and print a line of their own; see
// recipe_cache.go for the fields:
//
//	recipe=cache measure=init nodes=1011 data_bytes=100 cache_data=true runs=5 init_p50_ms=40.10 init_min_ms=38.00 init_max_ms=45.20 cold_ms=60.30
//
//	cache          zkrecipes' recipes/cache: a data and a child watch per node
//	curator-cache  Curator 5.4's CuratorCache (java, embedded
//	               java/CuratorCacheBench.java): one persistent recursive watch
//
// Each run creates a tree of -nodes leaves, -fanout under each parent, with
// -datasize bytes on every node, and measures (-measure) init: -iters loads
// by fresh sessions, from the cache's start to initialized; latency: -workers
// caches, each on its own session, and -iters setData calls, one at a time,
// from the call to each cache's Changed event; heap: one cache's heap per
// node, in use after a GC with the cache loaded minus before it started.
//
// The counter recipes measure increments of one counter (recipe_counter.go
// has their line's fields). The queue recipes measure items through one
// queue, N producers and N consumers (recipe_queue.go).
//
// Without -zk, zkbench starts a throwaway server with zktest, by default
// on the local backend (a java process on loopback, so no docker-proxy sits
// in the path); -backend docker or auto chooses otherwise, and -backend ""
// leaves the choice to ZK_BACKEND. Everything it creates lives under a fresh /zkbench/<run> path
// that it deletes at the end.
//
// -all runs the comparison matrix in one process against one server and
// prints a settings line (starting with '#') and one line per run; -big adds
// runs with 1000 waiters.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "zkbench:", err)
		}
		os.Exit(1)
	}
}

// defaultSession is the session timeout of the workers' sessions.
const defaultSession = 10 * time.Second

// options are the command's flags.
type options struct {
	run     runConfig
	zk      string // -zk as given; see zktest.ServersOrThrowaway
	backend string
	timeout time.Duration
	all     bool
	big     bool
	count   bool   // -count: count the workers' requests by opcode
	profile string // -cpuprofile: write a CPU profile of the whole run there
	max     int    // -max: the semaphore recipes' limit
	// participants is -participants: the election recipes' participants.
	participants int
	cache        cacheFlags // the cache recipes' own flags (recipe_cache.go)
	counter      counterFlags
	queue        queueFlags // the queue recipes' own flags (recipe_queue.go)
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("zkbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.run.recipe, "recipe", "mutex", "lock to measure: "+strings.Join(recipeNames, ", "))
	fs.IntVar(&o.run.workers, "workers", 1, "concurrent workers, each with its own session")
	fs.IntVar(&o.run.iters, "iters", 1000, "measured lock/unlock cycles per worker")
	fs.IntVar(&o.run.warmup, "warmup", 10, "unmeasured cycles per worker before the measurement")
	fs.DurationVar(&o.run.session, "session", defaultSession, "session timeout of every worker's session")
	fs.DurationVar(&o.run.budget, "budget", 0, "cap on the measured phase's duration; 0 for none (ops then counts completed cycles)")
	fs.IntVar(&o.run.readers, "readers", 0, "rwlock: workers taking the read lock")
	fs.IntVar(&o.run.writers, "writers", 0, "rwlock: workers taking the write lock")
	fs.StringVar(&o.zk, "zk", "", "ZooKeeper `host:port,...` (default: start a throwaway server)")
	fs.StringVar(&o.backend, "backend", "local", `zktest backend when -zk is empty: local, docker, auto, or "" for $ZK_BACKEND`)
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "give up on the whole command after this long")
	fs.BoolVar(&o.all, "all", false, "run the comparison matrix (ignores -recipe, -workers, -iters, -warmup)")
	fs.BoolVar(&o.big, "big", false, "with -all: add runs with 1000 waiters")
	fs.StringVar(&o.profile, "cpuprofile", "", "write a CPU profile (go tool pprof) of the run to `file`")
	fs.BoolVar(&o.count, "count", false, "count the workers' requests by opcode and add req_per_op (per cycle or term) to the line")
	fs.IntVar(&o.max, "max", defaultMax, "semaphore recipes: leases held at most at once")
	fs.IntVar(&o.participants, "participants", 0, "election recipes: participants, each with its own session (required, electfloor and requeuefloor excepted)")
	o.cache.register(fs)
	o.counter.register(fs)
	o.queue.register(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	maxSet, partSet := false, false
	fs.Visit(func(f *flag.Flag) {
		maxSet = maxSet || f.Name == "max"
		partSet = partSet || f.Name == "participants"
	})
	switch {
	case !slices.Contains([]string{"local", "docker", "auto", ""}, o.backend):
		return o, fmt.Errorf(`-backend must be local, docker, auto or "", got %q`, o.backend)
	case o.timeout <= 0:
		return o, fmt.Errorf("-timeout must be positive, got %v", o.timeout)
	case o.big && !o.all:
		return o, errors.New("-big only goes with -all")
	case o.count && !o.all && (isCacheRecipe(o.run.recipe) || isCounterRecipe(o.run.recipe) || isQueueRecipe(o.run.recipe) || o.run.recipe == recipeQueueListing):
		return o, fmt.Errorf("-count does not go with -recipe %s: its line has no req_per_op", o.run.recipe)
	case maxSet && (o.all || !isSemRecipe(o.run.recipe)):
		return o, fmt.Errorf("-max only goes with -recipe %s", strings.Join(semRecipeNames, "|"))
	case o.max < 1:
		return o, fmt.Errorf("-max must be at least 1, got %d", o.max)
	case partSet && (o.all || !isElectRecipe(o.run.recipe)):
		return o, fmt.Errorf("-participants only goes with -recipe %s", strings.Join(electRecipeNames, "|"))
	}
	if err := o.cache.check(fs, &o.run, o.all); err != nil {
		return o, err
	}
	if err := o.counter.check(fs, o.run.recipe, o.all); err != nil {
		return o, err
	}
	if err := o.queue.check(fs, o.run.recipe, o.all); err != nil {
		return o, err
	}
	if o.all {
		if o.run.session <= 0 {
			return o, fmt.Errorf("-session must be positive, got %v", o.run.session)
		}
		return o, nil
	}
	if isRW(o.run.recipe) {
		o.run.workers = o.run.readers + o.run.writers
	}
	if isElectRecipe(o.run.recipe) {
		o.run.workers = o.participants
		if o.run.recipe == recipeElectFloor || o.run.recipe == recipeRequeueFloor {
			o.run.workers = electFloorSessions
		}
		least := 2 // a failover needs someone to fail over to
		if o.run.recipe == recipeRun || o.run.recipe == recipeCuratorRun {
			least = 1
		}
		if o.run.workers < least {
			return o, fmt.Errorf("-recipe %s needs -participants %d or more, got %d", o.run.recipe, least, o.participants)
		}
	}
	return o, o.run.validate()
}

// run is the whole command; main only wires it to the process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if o.profile != "" {
		f, err := os.Create(o.profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	env, err := openEnv(ctx, o.zk, o.backend, o.count, stderr)
	if err != nil {
		return err
	}
	defer env.close()

	if o.all {
		return runAll(ctx, env, allPlan(o.big, o.run.session), stdout)
	}
	if isSemRecipe(o.run.recipe) {
		res, err := runSemaphore(ctx, env, semConfig{runConfig: o.run, max: o.max})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, res.line())
		return err
	}
	if isCacheRecipe(o.run.recipe) {
		return runCacheCmd(ctx, env, o.run, o.cache, stdout)
	}
	if isCounterRecipe(o.run.recipe) {
		return runCounterCmd(ctx, env, o.run, o.counter, stdout)
	}
	if isQueueRecipe(o.run.recipe) {
		return runQueueCmd(ctx, env, o.run, o.queue, stdout)
	}
	if o.run.recipe == recipeQueueListing {
		return runQueueListing(ctx, env, o.run, stdout)
	}
	if isElectRecipe(o.run.recipe) {
		res, err := runElection(ctx, env, o.run)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, res.line())
		return err
	}
	res, err := runOne(ctx, env, o.run)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, res.line())
	return err
}
