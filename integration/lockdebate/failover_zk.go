package lockdebate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// ZKFailoverScenario is the Scenario of PlayZKFailover's tally.
const ZKFailoverScenario = "zkrecipes mutex: ensemble leader killed right after the grant"

// ZKFailoverConfig describes a play of the ZooKeeper failover scenario.
type ZKFailoverConfig struct {
	// Rounds is how many rounds to play (at least 1); each kills the
	// ensemble's leader and restarts it afterwards.
	Rounds int
	// Session is both clients' session timeout (default 4s): a leader
	// election shorter than it keeps their sessions.
	Session time.Duration
	// Hold is how long A keeps the lock after the ensemble serves it again,
	// giving B every chance to get it wrongly (default 500ms).
	Hold time.Duration
	// Run names the lock's znode (default: random), under ZKBase(Run).
	Run string
	// Logger receives the clients' logs (default slog.Default()).
	Logger *slog.Logger
}

// PlayZKFailover plays zkrecipes' side of the failover in rounds on a
// ZooKeeper ensemble of three or more servers: client A takes the mutex,
// the ensemble's leader is killed (SIGKILL, docker kill) right after the
// grant, client B asks for the same mutex at once and waits. A waits until
// the ensemble serves it again, looks whether its lock node survived, holds
// it a while longer, and releases it; B must not get the lock before then
// (unless A's session ended, and so its holding). The killed server is
// restarted before the next round.
func PlayZKFailover(ctx context.Context, cluster *zktest.Cluster, cfg ZKFailoverConfig) (FailoverTally, error) {
	t := FailoverTally{Scenario: ZKFailoverScenario}
	switch {
	case cfg.Rounds < 1:
		return t, fmt.Errorf("rounds must be at least 1, got %d", cfg.Rounds)
	case cluster == nil || cluster.Size() < 3:
		return t, errors.New("the ZooKeeper failover needs an ensemble of at least 3 servers")
	}
	if cfg.Session == 0 {
		cfg.Session = 4 * time.Second
	}
	if cfg.Hold == 0 {
		cfg.Hold = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Run == "" {
		cfg.Run = NewRun()
	} else if !runName.MatchString(cfg.Run) {
		return t, fmt.Errorf("run name %q: want 1 to 32 lower-case letters and digits", cfg.Run)
	}
	path := ZKBase(cfg.Run) + "/failover"
	for n := 1; n <= cfg.Rounds; n++ {
		two, kept, err := zkFailoverRound(ctx, cluster, cfg, path)
		if err != nil {
			return t, fmt.Errorf("zookeeper failover round %d: %w", n, err)
		}
		t.Rounds++
		if two {
			t.TwoHolders++
		}
		if kept {
			t.Kept++
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return t, deleteZNodes(cctx, cluster.Addrs(), cfg.Logger, ZKBase(cfg.Run), "failover")
}

// bGrant is what B saw when it got the lock.
type bGrant struct {
	err        error
	aLostOpen  bool // A's Lost() had not closed
	aReleasing bool // A had begun to release
	aNode      bool // A's lock node still existed
}

// zkFailoverRound plays one round: two reports whether B got the lock while
// A held it, kept whether A's node survived the leader's death.
func zkFailoverRound(ctx context.Context, cluster *zktest.Cluster, cfg ZKFailoverConfig, path string) (two, kept bool, err error) {
	leader, err := cluster.Leader(ctx)
	if err != nil {
		return false, false, err
	}
	ca, err := connectZK(ctx, cluster.Addrs(), cfg.Session, cfg.Logger)
	if err != nil {
		return false, false, err
	}
	defer ca.Close()
	cb, err := connectZK(ctx, cluster.Addrs(), cfg.Session, cfg.Logger)
	if err != nil {
		return false, false, err
	}
	defer cb.Close()
	ma, err := mutex.New(ca, path)
	if err != nil {
		return false, false, err
	}
	mb, err := mutex.New(cb, path)
	if err != nil {
		return false, false, err
	}

	if err := ma.Lock(ctx); err != nil {
		return false, false, fmt.Errorf("client A: %w", err)
	}
	aNode, aSession := ma.Node(), ca.Session()
	killErr := cluster.KillServer(ctx, leader) // right after the grant
	defer func() {
		// Back to three servers for the next round.
		err = errors.Join(err, cluster.StartServer(context.WithoutCancel(ctx), leader))
	}()
	if killErr != nil {
		return false, false, errors.Join(killErr, ma.Unlock(ctx))
	}

	var releasing atomic.Bool
	granted := make(chan bGrant, 1)
	bctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	go func() {
		g := bGrant{err: mb.Lock(bctx)}
		if g.err == nil {
			g.aReleasing = releasing.Load()
			select {
			case <-ma.Lost():
			default:
				g.aLostOpen = true
			}
			g.aNode, _, g.err = cb.Exists(bctx, aNode)
		}
		granted <- g
	}()

	// A: once the ensemble serves again, is its node still there?
	ectx, ecancel := context.WithTimeout(ctx, time.Minute)
	kept, _, err = ca.Exists(ectx, aNode)
	ecancel()
	if err != nil {
		return false, false, errors.Join(fmt.Errorf("client A: look for its node after the failover: %w", err), ma.Unlock(ctx))
	}
	// Did A's session live through the election? A session never comes
	// back once ended, so if the connection that answered is still on it,
	// A's holding was live all along: its node could not have gone.
	survived := ca.Session() == aSession
	select {
	case <-aSession.Done():
		survived = false
	default:
	}
	var g bGrant
	early := false
	select {
	case g = <-granted: // B got it while A still held: the check below says so
		early = true
	case <-time.After(cfg.Hold):
	}
	releasing.Store(true)
	uerr := ma.Unlock(ctx)
	if uerr != nil && !errors.Is(uerr, zkrecipes.ErrLost) {
		return false, kept, fmt.Errorf("client A's unlock: %w", uerr)
	}
	if !early {
		g = <-granted
	}
	if g.err != nil {
		return false, kept, fmt.Errorf("client B: %w", g.err)
	}
	// Two holders: B got the lock before A began to release it while A's
	// holding could not have ended (its Lost() open, its node there, or its
	// session alive after the election).
	two = !g.aReleasing && (g.aLostOpen || g.aNode || survived)
	return two, kept, mb.Unlock(ctx)
}

// connectZK opens a client with a session of its own.
func connectZK(ctx context.Context, servers []string, session time.Duration, logger *slog.Logger) (*client.Client, error) {
	c, err := client.New(client.WithServers(servers...), client.WithSessionTimeout(session), client.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := c.Start(sctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}
