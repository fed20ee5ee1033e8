package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// The election recipes: they measure leadership changes, not locks, so they
// have a driver and a result line of their own.
const (
	recipeLatch        = "latch"         // recipes/election Latch: clean-resign failover
	recipeRun          = "run"           // recipes/election Run: terms per second
	recipeElectFloor   = "electfloor"    // bare delete -> watch event at another session
	recipeRequeueFloor = "requeuefloor"  // electfloor with Run's multi (delete + next create) for the delete
	recipeCuratorLatch = "curator-latch" // Curator 5.4's LeaderLatch (java)
	recipeCuratorRun   = "curator-run"   // Curator 5.4's LeaderSelector with autoRequeue (java)
)

var electRecipeNames = []string{recipeLatch, recipeRun, recipeElectFloor, recipeRequeueFloor, recipeCuratorLatch, recipeCuratorRun, recipeLatchCrash}

func isElectRecipe(name string) bool { return slices.Contains(electRecipeNames, name) }

// electFloorSessions is the number of sessions electfloor uses: the one that
// deletes and the one that watches.
const electFloorSessions = 2

// electResult is one election run's measurement.
type electResult struct {
	recipe       string
	participants int
	iters        int
	// terms counts the measured terms: failovers (latch, electfloor) or
	// terms started (run).
	terms   int
	elapsed time.Duration
	// p50 and p99 are of the failovers: from a resign (latch: the Close
	// call; run: lead returned; electfloor: the delete call) to the next
	// term's start (electfloor: the watch event).
	p50, p99 time.Duration
	// mean is the failovers' mean (the Go recipes'; 0 when not known, as
	// for the java ones): printed as failover_mean_ms when set.
	mean       time.Duration
	violations int64
	// session is the negotiated session timeout (latchcrash only; printed
	// as session_ms when set).
	session time.Duration
	// requests is -count's req_per_op field (with its leading space), or "".
	requests string
}

// setFailovers sets the percentiles from the samples.
func (r *electResult) setFailovers(samples []time.Duration) {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	r.p50, r.p99 = percentile(sorted, 50), percentile(sorted, 99)
	r.mean = 0
	if len(samples) > 0 {
		var sum time.Duration
		for _, d := range samples {
			sum += d
		}
		r.mean = sum / time.Duration(len(samples))
	}
}

// line renders the result as the one line zkbench prints per run.
func (r electResult) line() string {
	secs := r.elapsed.Seconds()
	perSec := 0.0
	if secs > 0 {
		perSec = float64(r.terms) / secs
	}
	line := fmt.Sprintf("recipe=%s participants=%d iters=%d terms=%d secs=%.2f terms_per_s=%.1f failover_p50_ms=%.2f failover_p99_ms=%.2f violations=%d",
		r.recipe, r.participants, r.iters, r.terms, secs, perSec,
		millis(r.p50), millis(r.p99), r.violations)
	if r.mean > 0 {
		line += fmt.Sprintf(" failover_mean_ms=%.2f", millis(r.mean))
	}
	if r.session > 0 {
		line += fmt.Sprintf(" session_ms=%d", r.session.Milliseconds())
	}
	return line + r.requests
}

// runElection runs one election recipe: warm-up terms first (not
// measured), then at most iters measured ones, within budget when positive.
func runElection(ctx context.Context, e *env, cfg runConfig) (electResult, error) {
	if err := cfg.validate(); err != nil {
		return electResult{}, err
	}
	dir, err := e.runDir(fmt.Sprintf("%s-p%d", cfg.recipe, cfg.workers))
	if err != nil {
		return electResult{}, err
	}
	switch cfg.recipe {
	case recipeLatch:
		return runLatchFailover(ctx, e, cfg, dir)
	case recipeRun:
		return runRunTerms(ctx, e, cfg, dir)
	case recipeElectFloor, recipeRequeueFloor:
		return runElectFloor(ctx, e, cfg, dir)
	case recipeCuratorLatch, recipeCuratorRun:
		return runCuratorElection(ctx, e, cfg, dir)
	case recipeLatchCrash:
		return runLatchCrash(ctx, e, cfg, dir)
	}
	return electResult{}, fmt.Errorf("unknown election recipe %q", cfg.recipe)
}

// termDetector is the bench's own check of an election: a term that starts
// while another term's context is still live is a violation, and so is a
// token not greater than the previous term's (unless both terms are on one
// node: a latch that resumed on its node after a reconnect keeps its token).
type termDetector struct {
	mu         sync.Mutex
	live       []detectedTerm
	lastToken  int64
	lastNode   string
	violations int64
}

// detectedTerm is what the detector reads of a term (*election.Term).
type detectedTerm interface {
	Err() error
	Token() int64
	Node() string
}

func (d *termDetector) begin(t detectedTerm) {
	d.mu.Lock()
	defer d.mu.Unlock()
	kept := d.live[:0]
	for _, o := range d.live {
		if o.Err() == nil {
			if o != t {
				d.violations++
			}
			kept = append(kept, o)
		}
	}
	d.live = append(kept, t)
	if t.Token() < d.lastToken || (t.Token() == d.lastToken && t.Node() != d.lastNode) {
		d.violations++
	}
	d.lastToken, d.lastNode = t.Token(), t.Node()
}

func (d *termDetector) count() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.violations
}

// termStart is a latch's term as its Terms channel delivered it.
type termStart struct {
	who int
	at  time.Time
	l   *election.Latch
}

// latchParticipant is one latch on a client of its own.
type latchParticipant struct {
	c *client.Client
	l *election.Latch
}

// runLatchFailover measures clean-resign failover of recipes/election's
// Latch: P latches, each on a client of its own; the leader closes its
// latch, and the time from the Close call to the next participant's Terms
// delivering its term is one failover; the resigned participant then joins
// again with a new latch, at the back.
func runLatchFailover(ctx context.Context, e *env, cfg runConfig, dir string) (electResult, error) {
	if cfg.workers < 2 {
		return electResult{}, fmt.Errorf("%s needs -participants 2 or more, got %d", cfg.recipe, cfg.workers)
	}
	parts := make([]latchParticipant, cfg.workers)
	var readers sync.WaitGroup
	quit := make(chan struct{}) // closed before the latches at the end: readers stop reporting
	defer func() {
		close(quit)
		for _, p := range parts {
			if p.l != nil {
				_ = p.l.Close(context.WithoutCancel(ctx))
			}
		}
		readers.Wait()
		for _, p := range parts {
			if p.c != nil {
				_ = p.c.Close()
			}
		}
	}()
	starts := make(chan termStart, 4*cfg.workers)
	det := &termDetector{}
	join := func(i int) error {
		l, err := election.NewLatch(parts[i].c, dir, election.WithID(strconv.Itoa(i)))
		if err != nil {
			return err
		}
		if err := l.Start(ctx); err != nil {
			return fmt.Errorf("participant %d: start: %w", i, err)
		}
		parts[i].l = l
		terms := l.Terms()
		readers.Go(func() {
			for t := range terms {
				at := time.Now()
				det.begin(t)
				select {
				case starts <- termStart{who: i, at: at}:
				case <-quit:
				}
			}
		})
		return nil
	}
	for i := range parts {
		c, err := startClient(ctx, e, cfg.session)
		if err != nil {
			return electResult{}, fmt.Errorf("participant %d: %w", i, err)
		}
		parts[i].c = c
	}
	for i := range parts {
		if err := join(i); err != nil {
			return electResult{}, err
		}
	}
	next := func() (termStart, error) {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		select {
		case s := <-starts:
			return s, nil
		case <-wctx.Done():
			return termStart{}, fmt.Errorf("no next leader: %w", wctx.Err())
		}
	}
	cur, err := next()
	if err != nil {
		return electResult{}, err
	}
	res := electResult{recipe: cfg.recipe, participants: cfg.workers, iters: cfg.iters}
	var start time.Time
	var samples []time.Duration
	for n := 0; n < cfg.warmup+cfg.iters; n++ {
		if n == cfg.warmup {
			start = time.Now()
		}
		if n >= cfg.warmup && cfg.budget > 0 && time.Since(start) >= cfg.budget {
			break
		}
		leader := cur.who
		cctx, cancel := context.WithTimeout(ctx, unlockTimeout)
		t0 := time.Now()
		err := parts[leader].l.Close(cctx)
		cancel()
		if err != nil {
			return electResult{}, fmt.Errorf("participant %d: close: %w", leader, err)
		}
		if cur, err = next(); err != nil {
			return electResult{}, err
		}
		if cur.who == leader {
			return electResult{}, fmt.Errorf("participant %d leads again after its latch closed", leader)
		}
		if n >= cfg.warmup {
			samples = append(samples, cur.at.Sub(t0))
			res.terms++
		}
		if err := join(leader); err != nil {
			return electResult{}, err
		}
	}
	res.elapsed = time.Since(start)
	res.setFailovers(samples)
	res.violations = det.count()
	return res, nil
}

// runRunTerms measures recipes/election's Run: P participants, each on a
// client of its own, with a lead function that returns at once. Terms per
// second over the measured terms; failover is from one lead's return to
// the next lead's call.
func runRunTerms(ctx context.Context, e *env, cfg runConfig, dir string) (electResult, error) {
	clients := make([]*client.Client, cfg.workers)
	defer func() {
		for _, c := range clients {
			if c != nil {
				_ = c.Close()
			}
		}
	}()
	for i := range clients {
		c, err := startClient(ctx, e, cfg.session)
		if err != nil {
			return electResult{}, fmt.Errorf("participant %d: %w", i, err)
		}
		clients[i] = c
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		mu         sync.Mutex
		count      int
		start, end time.Time
		lastReturn time.Time
		failovers  []time.Duration
		lastToken  int64
		violations int64
		inside     atomic.Int64
		// the workers' requests at the first measured term and at the end
		reqStart, reqEnd requestCounts
		cpuStart, cpuEnd time.Duration
	)
	total := cfg.warmup + cfg.iters
	finished := make(chan struct{})
	lead := func(_ context.Context, t *election.Term) error {
		at := time.Now()
		if inside.Add(1) > 1 {
			mu.Lock()
			violations++
			mu.Unlock()
		}
		mu.Lock()
		if t.Token() <= lastToken {
			violations++
		}
		lastToken = t.Token()
		n := count
		count++
		switch {
		case n == cfg.warmup:
			start = at
			reqStart, cpuStart = e.requests(), cpuTime()
		case n > cfg.warmup && n < total && !lastReturn.IsZero():
			failovers = append(failovers, at.Sub(lastReturn))
		}
		mu.Unlock()
		runtime.Gosched() // stay leader a little, so an overlap has a chance to show
		inside.Add(-1)
		now := time.Now()
		mu.Lock()
		lastReturn = now
		if n == total-1 {
			end = now
			reqEnd, cpuEnd = e.requests(), cpuTime()
			close(finished)
		}
		mu.Unlock()
		return nil
	}
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			errs[i] = election.Run(rctx, c, dir, lead, election.WithID(strconv.Itoa(i)))
		})
	}
	// The budget counts from the first measured term; wait for it first.
	var budget <-chan time.Time
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var failed error
wait:
	for {
		select {
		case <-finished:
			break wait
		case <-budget:
			mu.Lock()
			end = time.Now()
			reqEnd, cpuEnd = e.requests(), cpuTime()
			mu.Unlock()
			break wait
		case <-ctx.Done():
			failed = ctx.Err()
			break wait
		case <-tick.C:
			mu.Lock()
			started := !start.IsZero()
			mu.Unlock()
			if started && budget == nil && cfg.budget > 0 {
				budget = time.After(max(cfg.budget-time.Since(start), 0))
			}
		}
	}
	stop()
	wg.Wait()
	if failed != nil {
		return electResult{}, failed
	}
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return electResult{}, fmt.Errorf("participant %d: %w", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	res := electResult{recipe: cfg.recipe, participants: cfg.workers, iters: cfg.iters, violations: violations}
	res.setFailovers(failovers)
	if !start.IsZero() {
		res.terms = min(count, total) - cfg.warmup
		res.elapsed = end.Sub(start)
		res.requests = perOp(reqStart, reqEnd, res.terms)
		if e.link != nil {
			res.requests += cpuPerOp(cpuEnd-cpuStart, res.terms)
		}
	}
	return res, nil
}

// runElectFloor is the bare limit of a failover: session A creates an
// ephemeral node, session B reads it with a watch, and the time from A's
// delete call to B's watch event is one sample: one delete's commit and one
// watch event, with no election logic. requeuefloor replaces the delete with
// what ends a term of election.Run: one multi of the delete and the create of
// A's next ephemeral sequential node (deleted again, untimed, after the
// event).
func runElectFloor(ctx context.Context, e *env, cfg runConfig, dir string) (electResult, error) {
	a, err := dial(ctx, e.servers, cfg.session, nil, e.dialer())
	if err != nil {
		return electResult{}, err
	}
	defer a.Close()
	b, err := dial(ctx, e.servers, cfg.session, nil, e.dialer())
	if err != nil {
		return electResult{}, err
	}
	defer b.Close()
	node := path.Join(dir, "leader")
	res := electResult{recipe: cfg.recipe, participants: electFloorSessions, iters: cfg.iters}
	var start time.Time
	var samples []time.Duration
	for n := 0; n < cfg.warmup+cfg.iters; n++ {
		if n == cfg.warmup {
			start = time.Now()
		}
		if n >= cfg.warmup && cfg.budget > 0 && time.Since(start) >= cfg.budget {
			break
		}
		if _, err := a.Create(node, nil, zk.FlagEphemeral, worldACL); err != nil {
			return electResult{}, fmt.Errorf("create: %w", err)
		}
		// On an ensemble B's server may not have the node yet: look again.
		var events <-chan zk.Event
		for try := 0; ; try++ {
			_, _, events, err = b.GetW(node)
			if !errors.Is(err, zk.ErrNoNode) || try == 100 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if err != nil {
			return electResult{}, fmt.Errorf("getData with watch: %w", err)
		}
		t0 := time.Now()
		next, err := floorRelease(a, node, cfg.recipe == recipeRequeueFloor)
		if err != nil {
			return electResult{}, err
		}
		var ev zk.Event
		select {
		case ev = <-events:
		case <-ctx.Done():
			return electResult{}, ctx.Err()
		}
		at := time.Now()
		if ev.Type != zk.EventNodeDeleted {
			return electResult{}, fmt.Errorf("watch event %v, want a deletion", ev.Type)
		}
		if n >= cfg.warmup {
			samples = append(samples, at.Sub(t0))
			res.terms++
		}
		if next != "" {
			if err := a.Delete(next, -1); err != nil {
				return electResult{}, fmt.Errorf("delete the requeued node: %w", err)
			}
		}
	}
	res.elapsed = time.Since(start)
	res.setFailovers(samples)
	return res, nil
}

// floorRelease deletes node, alone or (requeue) in one multi with the create
// of the next ephemeral sequential node beside it, whose path it returns.
func floorRelease(a *zk.Conn, node string, requeue bool) (string, error) {
	if !requeue {
		if err := a.Delete(node, -1); err != nil {
			return "", fmt.Errorf("delete: %w", err)
		}
		return "", nil
	}
	res, err := a.Multi(&zk.DeleteRequest{Path: node, Version: -1},
		&zk.CreateRequest{Path: path.Join(path.Dir(node), "next-"), Flags: zk.FlagEphemeralSequential, Acl: worldACL})
	if err != nil {
		return "", fmt.Errorf("multi: %w", err)
	}
	return res[1].String, nil
}

// curatorElectionSource is java/CuratorElectionBench.java, built into the
// command so that it runs from any directory.
//
//go:embed java/CuratorElectionBench.java
var curatorElectionSource []byte

const curatorElectionClass = "CuratorElectionBench"

// runCuratorElection runs Curator's LeaderLatch (curator-latch) or
// LeaderSelector (curator-run) on dir in a java process
// (java/CuratorElectionBench.java) and reads its result line.
func runCuratorElection(ctx context.Context, e *env, cfg runConfig, dir string) (electResult, error) {
	if cfg.recipe == recipeCuratorLatch && cfg.workers < 2 {
		return electResult{}, fmt.Errorf("%s needs -participants 2 or more, got %d", cfg.recipe, cfg.workers)
	}
	cp, err := buildJavaBench(ctx, curatorElectionClass, curatorElectionSource)
	if err != nil {
		return electResult{}, err
	}
	servers, err := e.javaServers()
	if err != nil {
		return electResult{}, err
	}
	mode := "latch"
	if cfg.recipe == recipeCuratorRun {
		mode = "run"
	}
	reqBefore := e.requests()
	stdout, stderr, err := runJava(ctx, cp, curatorElectionClass, "-Xmx256m",
		mode, strings.Join(servers, ","), dir, strconv.Itoa(cfg.workers),
		strconv.Itoa(cfg.iters), strconv.Itoa(cfg.warmup), javaBudget(cfg.budget),
		strconv.FormatInt(cfg.session.Milliseconds(), 10))
	if err != nil {
		return electResult{}, err
	}
	// What the program noticed (violations, lost leadership, connection
	// states): passed on as warnings.
	for l := range strings.SplitSeq(stderr, "\n") {
		if msg, ok := strings.CutPrefix(l, "bench: "); ok {
			e.logger.Warn(cfg.recipe + ": " + msg)
		}
	}
	res, err := parseElectLine(stdout, cfg.recipe)
	if err == nil {
		// The counters saw the whole process: warm-up terms too.
		res.requests = perOp(reqBefore, e.requests(), res.terms+cfg.warmup)
	}
	return res, err
}

// parseElectLine reads the result line of recipe from out (the java
// program's output).
func parseElectLine(out, recipe string) (electResult, error) {
	line, ok := findResultLine(out, recipe)
	if !ok {
		return electResult{}, fmt.Errorf("no %s result line in:\n%s", recipe, out)
	}
	res := electResult{recipe: recipe}
	res.participants = int(line.num("participants"))
	res.iters = int(line.num("iters"))
	res.terms = int(line.num("terms"))
	res.elapsed = time.Duration(line.num("secs") * float64(time.Second))
	res.p50, res.p99 = line.ms("failover_p50_ms"), line.ms("failover_p99_ms")
	res.violations = int64(line.num("violations"))
	if line.has("session_ms") {
		res.session = time.Duration(line.num("session_ms")) * time.Millisecond
	}
	if err := line.err(); err != nil {
		return electResult{}, fmt.Errorf("line %q: %w", line.text, err)
	}
	return res, nil
}
