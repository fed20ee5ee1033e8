package chaos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// Scenario is one chaos run of one recipe: participants, each with its own
// client behind its own fault link, run a workload while the engine draws
// faults (the fault phase); then the faults stop and every participant
// must be granted again (the calm phase); then the workers stop, the
// clients close, and the checks run. Set the fields, then call Run.
type Scenario struct {
	Recipe    string
	Cluster   *zktest.Cluster
	Namespace string // every client's chroot ("" for none); the scenario's nodes live under it
	Seed      uint64
	Parts     int           // participants (at most MaxParts)
	Session   time.Duration // the participants' session timeout
	Fault     time.Duration // the fault phase
	Calm      time.Duration // the calm phase: at least this, until every participant was granted, at most 4 times this
	Kinds     []Kind        // the fault kinds drawn (nil: all)
	Capacity  Capacity      // what may be held at once
	Fenced    bool          // holdings write to the fenced store
	// Dirs are the recipe's paths (under the namespace): once the workers
	// stopped, no node may be left under them, and once the clients are
	// closed, they must be gone (containers reaped).
	Dirs []string
	// Start makes participant p's worker on its client c; the returned run
	// runs it until its context ends and returns once it released what it
	// held.
	Start func(ctx context.Context, c *client.Client, p Part) (run func(context.Context), err error)
	// Settle, when set, checks what the recipe keeps on the server once
	// the calm phase is over, while the workers still run (a kept node:
	// one per participant, owned by its live session, with its latest
	// data), with the checker's client; it returns what is wrong.
	Settle func(ctx context.Context, checker *client.Client) []Unsettled
	// Logger is given to the participants' clients (nil: a discarding one).
	Logger *slog.Logger
}

// Run runs the scenario. Its error is about the scenario's setup (a client
// that could not connect, a worker that could not be made); what the checks
// found is in the Result, and the Timeline explains it.
func (s *Scenario) Run(ctx context.Context) (Result, *Timeline, error) {
	tl := NewTimeline()
	if s.Parts < 1 || s.Parts > MaxParts {
		return Result{}, tl, fmt.Errorf("chaos: %d participants, want 1 to %d", s.Parts, MaxParts)
	}
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hist := NewHistory(tl)
	store := &Store{}
	var closers []func()
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}()
	checker, err := s.connect(ctx, nil, 10*time.Second, log)
	if err != nil {
		return Result{}, tl, err
	}
	closers = append(closers, func() { _ = checker.Close() })

	engine := &Engine{Seed: s.Seed, Cluster: s.Cluster, Session: s.Session, MaxGap: s.Session / 2,
		Kinds: s.Kinds, Events: tl, Holder: hist.Holder}
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	var runs []func(context.Context)
	var clients []*client.Client
	for i := range s.Parts {
		link := faultlink.New()
		closers = append(closers, link.Close)
		c, err := s.connect(ctx, link, s.Session, log)
		if err != nil {
			return Result{}, tl, err
		}
		clients = append(clients, c)
		closers = append(closers, func() { _ = c.Close() })
		closers = append(closers, WatchClient(tl, hist, PartName(i), c))
		part := Part{Who: i, Parts: s.Parts, Client: c, History: hist, Timeline: tl, Seed: s.Seed, Session: s.Session,
			LongUntil: time.Now().Add(s.Fault)} // no later than the fault phase's true end
		part.NewClient = func(ctx context.Context, wrap func(client.Dialer) client.Dialer) (*client.Client, error) {
			dial := client.Dialer(link.Dial)
			if wrap != nil {
				dial = wrap(dial)
			}
			return s.connectDial(ctx, dial, s.Session, log)
		}
		if s.Fenced {
			part.Store = store
		}
		run, err := s.Start(wctx, c, part)
		if err != nil {
			return Result{}, tl, fmt.Errorf("chaos: participant %d: %w", i, err)
		}
		runs = append(runs, run)
		engine.Targets = append(engine.Targets, Target{Name: PartName(i), Link: link})
	}

	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); run(wctx) }()
	}
	engine.Run(ctx, s.Fault)
	calmStart := time.Now()
	tl.Add("fault", "CALM phase begins")
	// Every participant must make progress once the faults stop: the calm
	// phase lasts Calm, and then on until each was granted (a machine
	// under load makes holds and handoffs slower), but 4 Calm at most: a
	// participant stuck for good (a queue blocked by a node left behind)
	// still fails the check.
	sleep(ctx, s.Calm)
	for deadline := calmStart.Add(4 * s.Calm); !hist.AllGrantedSince(calmStart, s.Parts) && time.Now().Before(deadline); {
		if !sleep(ctx, 100*time.Millisecond) {
			break
		}
	}
	var unsettled []Unsettled
	if s.Settle != nil {
		unsettled = s.Settle(ctx, checker)
		tl.Add("test", fmt.Sprintf("settle check: %d problems", len(unsettled)))
	}
	stopWorkers()
	wg.Wait()
	tl.Add("test", "workers stopped")

	// Live sessions must have deleted every node they made; nodes of
	// sessions the faults ended go once the server expires them.
	orphans := s.leftUnder(ctx, checker, 3*s.Session+5*time.Second)
	for _, c := range clients {
		_ = c.Close()
	}
	tl.Add("test", "clients closed")
	var gone []string
	if len(orphans) == 0 {
		gone = s.unreaped(ctx, checker, 10*time.Second)
	}
	r := Analyze(s.Seed, engine, hist, store, tl, orphans, calmStart, s.Parts, s.Capacity)
	r.Unreaped = gone
	r.Unsettled, r.Settled = unsettled, s.Settle != nil
	r.Recipe = s.Recipe
	return r, tl, ctx.Err()
}

// connect starts a client on the cluster in the scenario's namespace,
// dialing through link when it is not nil.
func (s *Scenario) connect(ctx context.Context, link *faultlink.Link, timeout time.Duration, log *slog.Logger) (*client.Client, error) {
	var dial client.Dialer
	if link != nil {
		dial = link.Dial
	}
	return s.connectDial(ctx, dial, timeout, log)
}

// connectDial is connect with dial as the dialer (none when nil).
func (s *Scenario) connectDial(ctx context.Context, dial client.Dialer, timeout time.Duration, log *slog.Logger) (*client.Client, error) {
	opts := []client.Option{
		client.WithServers(s.Cluster.Addrs()...),
		client.WithSessionTimeout(timeout),
		client.WithLogger(log),
	}
	if s.Namespace != "" {
		opts = append(opts, client.WithNamespace(s.Namespace))
	}
	if dial != nil {
		opts = append(opts, client.WithDialer(dial))
	}
	c, err := client.New(opts...)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Start(sctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("chaos: connect: %w", err)
	}
	return c, nil
}

// Orphan is a node left under a scenario's paths.
type Orphan struct {
	Path    string
	Session int64     // its ephemeral owner (0: persistent)
	Created time.Time // its ctime, by the server's clock (the same machine's here)
	Err     error     // the listing or stat that failed, if it is a failure rather than a node
}

func (o Orphan) String() string {
	if o.Err != nil {
		return fmt.Sprintf("%s (%v)", o.Path, o.Err)
	}
	return fmt.Sprintf("%s (session 0x%x)", o.Path, o.Session)
}

// leftUnder waits up to d for every node under the scenario's dirs to go;
// it returns those still there.
func (s *Scenario) leftUnder(ctx context.Context, c *client.Client, d time.Duration) []Orphan {
	deadline := time.Now().Add(d)
	// A listing that cannot finish (a server that never came back) fails
	// with the deadline, as an orphan with its error, rather than hangs.
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(10*time.Second))
	defer cancel()
	for {
		left := s.nodesUnder(ctx, c)
		if len(left) == 0 || time.Now().After(deadline) || !sleep(ctx, 100*time.Millisecond) {
			return left
		}
	}
}

// nodesUnder lists every node below the scenario's dirs that is not a
// container (containers are the recipes' structure, reaped by the server
// once empty; every other node is a participant's).
func (s *Scenario) nodesUnder(ctx context.Context, c *client.Client) []Orphan {
	var left []Orphan
	var walk func(p string)
	walk = func(p string) {
		kids, _, err := c.Children(ctx, p)
		if err != nil {
			if !errors.Is(err, zk.ErrNoNode) {
				left = append(left, Orphan{Path: p, Err: fmt.Errorf("listing failed: %w", err)})
			}
			return
		}
		for _, k := range kids {
			kp := path.Join(p, k)
			ok, st, err := c.Exists(ctx, kp)
			switch {
			case err != nil:
				left = append(left, Orphan{Path: kp, Err: fmt.Errorf("stat failed: %w", err)})
			case !ok:
			case st.EphemeralOwner == containerOwner:
				walk(kp)
			default:
				left = append(left, Orphan{Path: kp, Session: st.EphemeralOwner, Created: time.UnixMilli(st.Ctime)})
			}
		}
	}
	for _, d := range s.Dirs {
		walk(d)
	}
	return left
}

// containerOwner is the ephemeral owner ZooKeeper reports for a container
// node.
const containerOwner = math.MinInt64

// unreaped waits up to d for the scenario's dirs to be reaped (the server
// deletes empty containers); it returns those still there.
func (s *Scenario) unreaped(ctx context.Context, c *client.Client, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		var left []string
		for _, dir := range s.Dirs {
			if ok, _, err := c.Exists(ctx, dir); err != nil || ok {
				left = append(left, dir)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) || !sleep(ctx, 100*time.Millisecond) {
			return left
		}
	}
}
