package lockdebate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// FailoverTally is one failover scenario's outcome over its rounds.
type FailoverTally struct {
	// Scenario describes the fault, for the table.
	Scenario string
	// Rounds is how many rounds were played.
	Rounds int
	// TwoHolders counts rounds in which the second client got the lock
	// while the first still held it by the lock's own rules: within its
	// lease (Redis); for ZooKeeper, before the first began to release it
	// while its Lost() was open, its node existed or its session lived.
	TwoHolders int
	// Kept counts rounds in which the first client's lock outlived the
	// fault: the key on the promoted Redis replica, the lock node after a
	// new ZooKeeper leader took over.
	Kept int
}

// RedisFailoverConfig describes a play of the Redis failover scenario.
type RedisFailoverConfig struct {
	// Rounds is how many rounds to play; each starts a fresh primary and
	// replica (at least 1).
	Rounds int
	// Lease is the lock's lease (PX): the second client's SET must come
	// within it to make two holders (default 10s).
	Lease time.Duration
	// Replicated, when true, plays the control instead: the first client
	// waits for the replica to acknowledge the key (WAIT 1) before the
	// primary is killed, so the promoted replica has it.
	Replicated bool
}

// PlayRedisFailover plays the Redis failover in rounds, each on a fresh
// primary and replica on loopback (throwaway redis-server processes; the
// replica replicates through a relay the scenario controls): client A takes
// the lock on the primary (SET NX PX) while the relay withholds the
// primary's stream, so the key has not replicated; the primary is killed
// (SIGKILL); the replica is promoted (REPLICAOF NO ONE), as Sentinel would;
// client B takes the same lock on it. Two holders, within A's lease.
func PlayRedisFailover(ctx context.Context, cfg RedisFailoverConfig) (FailoverTally, error) {
	if cfg.Lease == 0 {
		cfg.Lease = 10 * time.Second
	}
	t := FailoverTally{Scenario: "Redis: primary killed before the lock key replicated, replica promoted"}
	if cfg.Replicated {
		t.Scenario = "Redis control: key replicated (WAIT 1) before the kill"
	}
	if cfg.Rounds < 1 {
		return t, fmt.Errorf("rounds must be at least 1, got %d", cfg.Rounds)
	}
	if cfg.Lease < 100*time.Millisecond {
		return t, fmt.Errorf("lease must be at least 100ms, got %v", cfg.Lease)
	}
	for n := 1; n <= cfg.Rounds; n++ {
		two, kept, err := redisFailoverRound(ctx, cfg)
		if err != nil {
			return t, fmt.Errorf("redis failover round %d: %w", n, err)
		}
		t.Rounds++
		if two {
			t.TwoHolders++
		}
		if kept {
			t.Kept++
		}
	}
	return t, nil
}

// redisFailoverRound plays one round and reports whether B got the lock
// within A's lease.
func redisFailoverRound(ctx context.Context, cfg RedisFailoverConfig) (twoHolders, kept bool, err error) {
	primary, err := StartRedis(ctx)
	if err != nil {
		return false, false, err
	}
	defer func() { err = errors.Join(err, primary.Close()) }()
	link, err := startRelay(primary.Addr())
	if err != nil {
		return false, false, err
	}
	defer func() { err = errors.Join(err, link.Close()) }()
	replica, err := StartRedis(ctx, "--replicaof", "127.0.0.1", strconv.Itoa(link.Addr().Port))
	if err != nil {
		return false, false, err
	}
	defer func() { err = errors.Join(err, replica.Close()) }()

	p, r := NewRedisClient(primary.Addr()), NewRedisClient(replica.Addr())
	defer p.Close()
	defer r.Close()
	// The link replicates: a key written before the fault reaches the replica.
	if err := waitReplicated(ctx, p, r); err != nil {
		return false, false, err
	}

	if !cfg.Replicated {
		link.Hold()
	}
	a := &redisLock{rdb: p, key: "lock", value: "A", lease: cfg.Lease}
	actx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ok, err := a.tryAcquire(actx)
	if err != nil || !ok {
		return false, false, fmt.Errorf("client A did not get the free lock on the primary (%v)", err)
	}
	granted := time.Now()
	if cfg.Replicated {
		n, err := p.Do(actx, "WAIT", 1, 5000).Int()
		if err != nil || n != 1 {
			return false, false, fmt.Errorf("WAIT 1: %d replicas acknowledged (%v)", n, err)
		}
	}

	// The primary dies; the link with what it withheld goes with it.
	if err := primary.Kill(); err != nil {
		return false, false, err
	}
	if err := link.Close(); err != nil {
		return false, false, err
	}
	// (The relay may have withheld nothing: a primary killed at once may not
	// have sent the SET to its replicas yet. Either way it never arrived.)
	if err := r.Do(actx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		return false, false, fmt.Errorf("promote the replica: %w", err)
	}

	// Did A's key survive? (B's SET answers that too; this is the direct look.)
	v, err := r.Get(actx, "lock").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, false, fmt.Errorf("read the lock on the promoted replica: %w", err)
	}
	kept = v == "A"

	b := &redisLock{rdb: r, key: "lock", value: "B", lease: cfg.Lease}
	ok, err = b.tryAcquire(actx)
	if err != nil {
		return false, kept, fmt.Errorf("client B on the promoted replica: %w", err)
	}
	return ok && time.Since(granted) < cfg.Lease, kept, nil
}

// waitReplicated writes a key on the primary and waits until the replica
// has it: the replica is in sync and the link works.
func waitReplicated(ctx context.Context, p, r *redis.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := p.Set(ctx, "before-the-fault", "1", 0).Err(); err != nil {
		return err
	}
	for {
		v, err := r.Get(ctx, "before-the-fault").Result()
		if err == nil && v == "1" {
			return nil
		}
		select {
		case <-ctx.Done():
			info, _ := r.Info(context.WithoutCancel(ctx), "replication").Result()
			return fmt.Errorf("the replica did not sync: %w (%v); INFO replication: %s", ctx.Err(), err, strings.TrimSpace(info))
		case <-time.After(20 * time.Millisecond):
		}
	}
}
