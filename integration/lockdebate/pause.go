package lockdebate

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// ZKRoot is the parent of every run's znodes (the examples' root).
const ZKRoot = "/zkrecipes-examples"

// steadySession is the session timeout of the contender that is never
// paused: long enough that a busy machine does not cost it its lock.
const steadySession = 10 * time.Second

// PauseConfig describes one play of the paused-holder scenario.
type PauseConfig struct {
	// Redis is the host:port of the Redis server for KindRedis.
	Redis string
	// MySQL is the DSN (go-sql-driver/mysql) of the database that holds the
	// resource and KindMySQL's lock table; it must name a database.
	MySQL string
	// ZK are the ZooKeeper servers for KindZK and KindZKFenced.
	ZK []string
	// Kinds are the locks to play (default: Kinds), each in a lane of its
	// own, all at once: each lane has its own lock, resource row and
	// processes, so lanes do not meet.
	Kinds []Kind
	// Rounds is how many rounds each lock plays (at least 1).
	Rounds int
	// Lease is the Redis and MySQL locks' lease (PX, expires_at).
	Lease time.Duration
	// Session is the ZooKeeper session timeout the paused holder asks for
	// (the server bounds it by 2 and 20 ticks).
	Session time.Duration
	// Run names this run's Redis keys, tables and znodes: lower-case
	// letters and digits (default: random).
	Run string
	// Logger receives the steady contenders' client logs (default
	// slog.Default()).
	Logger *slog.Logger
	// Progress, if set, is called after each round (from several goroutines
	// at once: one per lane).
	Progress func(Round)
}

// Round is what one round of one lock showed.
type Round struct {
	// Kind is the lock.
	Kind Kind
	// N is the round's number, from 1 (a replayed round takes the next).
	N int
	// Paused is how long the holder's process was stopped: until the other
	// contender had taken the lock and written.
	Paused time.Duration
	// StaleAccepted reports that the resource took the paused holder's
	// write after the other contender had taken the lock; else it refused.
	StaleAccepted bool
	// Overlap reports that the resource's history shows both holdings at
	// once: the paused holder's writes on both sides of the other's.
	Overlap bool
	// TokenA and TokenB are the fencing tokens of the paused holder and of
	// the other contender (fenced kind only).
	TokenA, TokenB int64
}

// Tally is one lock's outcome over all its rounds.
type Tally struct {
	// Kind is the lock.
	Kind Kind
	// Rounds is how many rounds were played to the end.
	Rounds int
	// Overlaps counts rounds whose resource history shows two holdings at
	// once (see Round.Overlap).
	Overlaps int
	// StaleAccepted and StaleRefused count the paused holder's writes after
	// the other contender took the lock: one per round.
	StaleAccepted, StaleRefused int
	// Replayed counts rounds played again because the holder had lost the
	// lock before the pause (its check failed: nothing to show).
	Replayed int
	// MedianPause is the median of the rounds' Paused.
	MedianPause time.Duration
}

// PlayPause plays Martin Kleppmann's paused-holder scenario against each
// lock, in rounds: contender A takes the lock, writes, checks that it still
// holds it and is then stopped (SIGSTOP of its process) until contender B
// has taken the same lock and written; then A runs again and writes at
// once, as if it still held the lock. It creates the run's tables (dropped
// at the end) and Redis keys and znodes (deleted at the end) and returns a
// tally per lock, in Kinds order.
//
// A plays in a process of its own: the current executable, whose main or
// TestMain must call ServeHolderIfChild first.
func PlayPause(ctx context.Context, cfg PauseConfig) (_ []Tally, err error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	db, err := sql.Open("mysql", cfg.MySQL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	t := tablesFor(cfg.Run)
	ids := make([]int, len(cfg.Kinds))
	for i := range ids {
		ids[i] = i + 1
	}
	if err := createTables(ctx, db, t, ids); err != nil {
		return nil, errors.Join(err, dropTables(context.WithoutCancel(ctx), db, t))
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		err = errors.Join(err, cfg.cleanUp(cctx, db, t))
	}()

	tallies := make([]Tally, len(cfg.Kinds))
	errs := make([]error, len(cfg.Kinds))
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for i, k := range cfg.Kinds {
		wg.Go(func() {
			tallies[i], errs[i] = cfg.playLane(lctx, cfg.spec(k, t, ids[i]))
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", k, errs[i])
				cancel(errs[i]) // the other lanes stop too
			}
		})
	}
	wg.Wait()
	return tallies, errors.Join(errs...)
}

// normalize checks cfg and fills in its defaults.
func (cfg *PauseConfig) normalize() error {
	if os.Getenv(holderEnv) != "" {
		return errNotServed // this is a holder process that ran main instead
	}
	if len(cfg.Kinds) == 0 {
		cfg.Kinds = Kinds
	}
	zk, redis := false, false
	for i, k := range cfg.Kinds {
		if !k.valid() {
			return fmt.Errorf("unknown lock kind %q", string(k))
		}
		if slices.Contains(cfg.Kinds[:i], k) {
			return fmt.Errorf("lock kind %q twice", string(k))
		}
		zk = zk || k.zooKeeper()
		redis = redis || k == KindRedis
	}
	switch {
	case cfg.Rounds < 1:
		return fmt.Errorf("rounds must be at least 1, got %d", cfg.Rounds)
	case cfg.MySQL == "":
		return errors.New("no database (MySQL DSN) for the resource")
	case redis && cfg.Redis == "":
		return errors.New("no Redis server for the Redis lock")
	case zk && len(cfg.ZK) == 0:
		return errors.New("no ZooKeeper servers for zkrecipes' mutex")
	case cfg.Lease < 10*time.Millisecond:
		return fmt.Errorf("lease must be at least 10ms, got %v", cfg.Lease)
	case zk && cfg.Session <= 0:
		return fmt.Errorf("session timeout must be positive, got %v", cfg.Session)
	}
	if cfg.Run == "" {
		cfg.Run = NewRun()
	}
	if !runName.MatchString(cfg.Run) {
		return fmt.Errorf("run name %q: want 1 to 32 lower-case letters and digits", cfg.Run)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return nil
}

// NewRun returns a random run name: 12 hexadecimal digits.
func NewRun() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RedisKeyPrefix is what every Redis key of run starts with.
func RedisKeyPrefix(run string) string { return "lockdebate:" + run + ":" }

// TablePrefix is what every table of run is named with.
func TablePrefix(run string) string { return "lockdebate_" + run + "_" }

// ZKBase is the znode under which run's locks are.
func ZKBase(run string) string { return ZKRoot + "/fencing-" + run }

// spec is the lane of kind k on resource row id.
func (cfg *PauseConfig) spec(k Kind, t tables, id int) laneSpec {
	s := laneSpec{Kind: k, Redis: cfg.Redis, MySQL: cfg.MySQL, ZK: cfg.ZK, Lease: cfg.Lease, Tables: t, ResourceID: id}
	switch {
	case k == KindRedis:
		s.LockName = RedisKeyPrefix(cfg.Run) + "lock"
	case k.zooKeeper():
		s.LockName = ZKBase(cfg.Run) + "/" + string(k)
	default:
		s.LockName = "resource-" + string(k)
	}
	return s
}

// cleanUp drops the run's tables and deletes its Redis key and znodes (the
// lock directories must be empty: a node left in one is an error).
func (cfg *PauseConfig) cleanUp(ctx context.Context, db *sql.DB, t tables) error {
	errs := []error{dropTables(ctx, db, t)}
	if slices.Contains(cfg.Kinds, KindRedis) {
		rdb := NewRedisClient(cfg.Redis)
		errs = append(errs, rdb.Del(ctx, RedisKeyPrefix(cfg.Run)+"lock").Err(), rdb.Close())
	}
	var locks []string
	for _, k := range cfg.Kinds {
		if k.zooKeeper() {
			locks = append(locks, string(k))
		}
	}
	if len(locks) > 0 {
		errs = append(errs, deleteZNodes(ctx, cfg.ZK, cfg.Logger, ZKBase(cfg.Run), locks...))
	}
	return errors.Join(errs...)
}

// deleteZNodes deletes the lock directories base/lock and then base. They
// are containers the server would reap in time; a user's ensemble may take
// a minute to, so they go now. A lock directory that still has a child is
// an error: some node was left behind.
func deleteZNodes(ctx context.Context, servers []string, logger *slog.Logger, base string, locks ...string) error {
	c, err := client.New(client.WithServers(servers...), client.WithLogger(logger))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return err
	}
	for _, l := range locks {
		if err := c.DeleteIfExists(ctx, base+"/"+l); err != nil {
			return fmt.Errorf("delete the lock %s/%s: %w", base, l, err)
		}
	}
	return c.DeleteIfExists(ctx, base)
}
