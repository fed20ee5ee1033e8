// Command fencing plays the seeds' lock debate on real servers and prints
// what each lock let through.
//
// The debate: a Redis lock (SET key value NX PX lease, released by a Lua
// compare-and-delete), a MySQL lock row (unique by name, with an expiry,
// released by delete) and ZooKeeper's lock all promise one holder at a time;
// Martin Kleppmann's reply is that any lock with a lease fails when its
// holder pauses (a GC pause, a stopped VM) past the lease and then writes as
// if it still held it, unless the storage checks a fencing token; and that a
// Redis primary that fails over before replicating the lock key hands the
// lock to a second client.
//
// Here every lock guards the same kind of resource, a row in a real MariaDB
// table. In each round holder A takes the lock, writes, checks that it
// still holds it (GET for Redis, a SELECT for the lock row, Lost() for
// zkrecipes) and is stopped with SIGSTOP (its whole process: for ZooKeeper
// its heartbeats stop too) until holder B has taken the same lock and
// written; then A runs again and writes at once. The fourth lock carries
// zkrecipes' fencing token (Token: the lock node's czxid) into the write,
// and the row refuses a token below the highest it has seen. Then the
// failovers: a Redis primary killed before the key replicated, and a
// ZooKeeper ensemble's leader killed right after a grant. The output ends
// with two Markdown tables:
//
//	| lock                                | rounds | overlaps | stale writes accepted | stale writes refused | median pause |
//	| ----------------------------------- | -----: | -------: | --------------------: | -------------------: | -----------: |
//	| Redis SET NX PX, Lua release        |     20 |       20 |                    20 |                    0 |        503ms |
//	| MySQL lock row (unique key, expiry) |     20 |       20 |                    20 |                    0 |        502ms |
//	| zkrecipes mutex, Lost() checked     |     20 |       20 |                    20 |                    0 |       1.074s |
//	| zkrecipes mutex + fencing token     |     20 |        0 |                     0 |                   20 |       1.079s |
//
// and one of the failovers (two holders, first lock kept). docs/lock-debate.md ("Which
// lock? The seeds' debate, measured") explains the columns.
//
// Usage:
//
//	go run ./examples/fencing [-redis host:port] [-mysql DSN] [-zk host:port,...]
//	    [-rounds N] [-lease D] [-session D] [-redis-failover-rounds N] [-zk-failover-rounds N] [-v]
//
// Without -redis, -mysql or -zk it starts throwaway servers on loopback
// (Debian's redis-server and mariadb-server, which scripts/install-deps.sh
// installs; ZooKeeper through zktest) and stops them at the end. The
// failovers always run on throwaway servers of their own, since they kill
// them. Servers that are given are checked first: one that does not answer
// ends the command with a message naming it and exit status 1, before
// anything is written anywhere. A run's keys, tables and znodes are named
// after a random run id and removed at the end. The command also exits 1
// when the fenced mutex let a stale write through or two clients held the
// ZooKeeper lock at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/redis/go-redis/v9/logging"

	"github.com/go-zkrecipes/zkrecipes/integration/lockdebate"
)

func main() {
	// The paused holder is this program again, in a process of its own.
	lockdebate.ServeHolderIfChild()
	// go-redis's own log lines (a failed dial...) would repeat the errors
	// this program reports itself.
	logging.Disable()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fencing example:", err)
		os.Exit(1)
	}
}

// settings are the command's flags.
type settings struct {
	redis, mysql, zk string
	rounds           int
	lease, session   time.Duration
	redisFailover    int
	zkFailover       int
	verbose          bool
}

func parseFlags(args []string) (settings, error) {
	fs := flag.NewFlagSet("fencing", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var s settings
	fs.StringVar(&s.redis, "redis", "", "Redis server `host:port` (default: start a throwaway redis-server)")
	fs.StringVar(&s.mysql, "mysql", "", "MySQL/MariaDB `DSN` user:password@tcp(host:port)/database (default: start a throwaway MariaDB)")
	fs.StringVar(&s.zk, "zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	fs.IntVar(&s.rounds, "rounds", 20, "rounds of the paused holder per lock")
	fs.DurationVar(&s.lease, "lease", 500*time.Millisecond, "lease of the Redis and MySQL locks")
	fs.DurationVar(&s.session, "session", time.Second, "ZooKeeper session timeout of the paused holder")
	fs.IntVar(&s.redisFailover, "redis-failover-rounds", 5, "rounds of the Redis failover, and of its control (0: none)")
	fs.IntVar(&s.zkFailover, "zk-failover-rounds", 3, "rounds of the ZooKeeper leader kill (0: none)")
	fs.BoolVar(&s.verbose, "v", false, "print every round")
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	switch {
	case fs.NArg() > 0:
		return s, fmt.Errorf("unexpected arguments %q", fs.Args())
	case s.rounds < 1 || s.rounds > 1000:
		return s, fmt.Errorf("-rounds must be from 1 to 1000, got %d", s.rounds)
	case s.lease < 100*time.Millisecond || s.lease > time.Minute:
		return s, fmt.Errorf("-lease must be from 100ms to 1m, got %v", s.lease)
	case s.session < 100*time.Millisecond || s.session > time.Minute:
		return s, fmt.Errorf("-session must be from 100ms to 1m, got %v", s.session)
	case s.redisFailover < 0 || s.redisFailover > 100:
		return s, fmt.Errorf("-redis-failover-rounds must be from 0 to 100, got %d", s.redisFailover)
	case s.zkFailover < 0 || s.zkFailover > 20:
		return s, fmt.Errorf("-zk-failover-rounds must be from 0 to 20, got %d", s.zkFailover)
	}
	if s.mysql != "" {
		if err := lockdebate.ValidateDSN(s.mysql); err != nil {
			return s, fmt.Errorf("-mysql: %w", err)
		}
	}
	return s, nil
}

// Errors of the claims the command checks.
var (
	errFencingFailed = errors.New("the fenced mutex let a stale write through")
	errTwoHolders    = errors.New("two clients held the ZooKeeper lock at once")
)

// run is the whole program, minus os.Exit: it ends with the two tables.
func run(ctx context.Context, args []string, stdout io.Writer) (err error) {
	s, err := parseFlags(args)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	srv, err := startServers(ctx, s, logger, stdout)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.close()) }()

	fmt.Fprintf(stdout, "paused holder: %s per lock, the %d locks at once (Redis and MySQL lease %v, ZooKeeper session %v)\n",
		count(s.rounds, "round"), len(lockdebate.Kinds), s.lease, s.session)
	cfg := lockdebate.PauseConfig{
		Redis: srv.redis, MySQL: srv.mysql, ZK: srv.zk,
		Rounds: s.rounds, Lease: s.lease, Session: s.session, Logger: logger,
	}
	if s.verbose {
		cfg.Progress = func(r lockdebate.Round) { printRound(stdout, r) }
	}
	pause, err := lockdebate.PlayPause(ctx, cfg)
	if err != nil {
		return err
	}
	failover, err := playFailovers(ctx, s, logger, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := lockdebate.WriteTables(stdout, pause, failover); err != nil {
		return err
	}
	return checkClaims(pause, failover)
}

// playFailovers plays the Redis failover and its control, then the
// ZooKeeper leader kill on a throwaway ensemble.
func playFailovers(ctx context.Context, s settings, logger *slog.Logger, stdout io.Writer) ([]lockdebate.FailoverTally, error) {
	var out []lockdebate.FailoverTally
	if s.redisFailover > 0 {
		fmt.Fprintf(stdout, "Redis failover: %s on a fresh primary and replica each, and as many with the key replicated first\n", count(s.redisFailover, "round"))
		for _, replicated := range []bool{false, true} {
			t, err := lockdebate.PlayRedisFailover(ctx, lockdebate.RedisFailoverConfig{Rounds: s.redisFailover, Replicated: replicated})
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
	}
	if s.zkFailover > 0 {
		t, err := playZKFailover(ctx, s.zkFailover, logger, stdout)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// checkClaims fails when zkrecipes broke a promise: a stale write through
// the fence, or two holders across a leader's death.
func checkClaims(pause []lockdebate.Tally, failover []lockdebate.FailoverTally) error {
	for _, t := range pause {
		if t.Kind == lockdebate.KindZKFenced && (t.StaleAccepted > 0 || t.Overlaps > 0) {
			return fmt.Errorf("%w: %d accepted, %d overlaps in %d rounds", errFencingFailed, t.StaleAccepted, t.Overlaps, t.Rounds)
		}
	}
	for _, t := range failover {
		if t.Scenario == lockdebate.ZKFailoverScenario && t.TwoHolders > 0 {
			return fmt.Errorf("%w: in %d of %d rounds", errTwoHolders, t.TwoHolders, t.Rounds)
		}
	}
	return nil
}

// count is "1 round", "2 rounds".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printRound is -v's line per round.
func printRound(w io.Writer, r lockdebate.Round) {
	what := "refused"
	if r.StaleAccepted {
		what = "ACCEPTED"
	}
	tokens := ""
	if r.Kind == lockdebate.KindZKFenced {
		tokens = fmt.Sprintf(" (token %#x < %#x)", r.TokenA, r.TokenB)
	}
	fmt.Fprintf(w, "  %-35s round %2d: A stopped %v, B took the lock and wrote; A's write %s%s\n",
		r.Kind, r.N, r.Paused.Round(time.Millisecond), what, tokens)
}
