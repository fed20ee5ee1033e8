package lockdebate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// laneSpec is what both contenders of one lane need: where the servers are,
// which lock and which resource row. The paused holder's process receives
// it as JSON.
type laneSpec struct {
	Kind       Kind
	Redis      string        // host:port, for KindRedis
	MySQL      string        // DSN: the resource, and KindMySQL's lock table
	ZK         []string      // for the ZooKeeper kinds
	Lease      time.Duration // of the Redis and MySQL locks
	LockName   string        // Redis key, lock row name, or znode path
	Tables     tables
	ResourceID int
}

// contender is one party to a lane: the lock and the resource, over
// connections of its own, as a process of its own would have.
type contender struct {
	name    string // "A" (the one paused) or "B"
	kind    Kind
	newLock func() lockHandle // a handle for the next holding
	res     *Resource
	closers []func() error
}

// openContender connects a contender. session is the ZooKeeper session
// timeout it asks for (the ZooKeeper kinds only).
func openContender(ctx context.Context, spec laneSpec, name string, session time.Duration, logger *slog.Logger) (_ *contender, err error) {
	c := &contender{name: name, kind: spec.Kind}
	defer func() {
		if err != nil {
			_ = c.close()
		}
	}()
	db, err := sql.Open("mysql", spec.MySQL)
	if err != nil {
		return nil, err
	}
	c.closers = append(c.closers, db.Close)
	c.res = &Resource{db: db, t: spec.Tables, id: spec.ResourceID}

	holdings := 0
	owner := func() string { // unique per holding
		holdings++
		return fmt.Sprintf("%s-%d-%x", name, holdings, time.Now().UnixNano())
	}
	switch spec.Kind {
	case KindRedis:
		rdb := NewRedisClient(spec.Redis)
		c.closers = append(c.closers, rdb.Close)
		c.newLock = func() lockHandle {
			return &redisLock{rdb: rdb, key: spec.LockName, value: owner(), lease: spec.Lease}
		}
	case KindMySQL:
		c.newLock = func() lockHandle {
			return &sqlLock{db: db, table: spec.Tables.Locks, name: spec.LockName, owner: owner(), lease: spec.Lease}
		}
	case KindZK, KindZKFenced:
		zc, err := client.New(client.WithServers(spec.ZK...), client.WithSessionTimeout(session), client.WithLogger(logger))
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := zc.Start(sctx); err != nil {
			_ = zc.Close()
			return nil, fmt.Errorf("connect to ZooKeeper: %w", err)
		}
		c.closers = append(c.closers, zc.Close)
		if _, err := mutex.New(zc, spec.LockName); err != nil {
			return nil, err // a bad path: fail here, not in a round
		}
		c.newLock = func() lockHandle {
			m, _ := mutex.New(zc, spec.LockName)
			return &zkLock{m: m, fenced: spec.Kind == KindZKFenced}
		}
	default:
		return nil, fmt.Errorf("unknown lock kind %q", spec.Kind)
	}
	return c, nil
}

// writer names this contender's holding in round n, as the history shows it.
func (c *contender) writer(n int) string { return writerName(c.name, n) }

// writerName names contender name's holding in round n.
func writerName(name string, n int) string { return fmt.Sprintf("%s#%d", name, n) }

// write updates the resource as this lock's users do: with the token for
// the fenced kind, plainly otherwise.
func (c *contender) write(ctx context.Context, n int, what string, token int64) (bool, error) {
	value := fmt.Sprintf("%s by %s in round %d", what, c.name, n)
	if c.kind == KindZKFenced {
		return c.res.WriteFenced(ctx, c.writer(n), value, token)
	}
	return c.res.Write(ctx, c.writer(n), value)
}

// close closes the contender's connections, the last opened first.
func (c *contender) close() error {
	var errs []error
	for i := len(c.closers) - 1; i >= 0; i-- {
		errs = append(errs, c.closers[i]())
	}
	c.closers = nil
	return errors.Join(errs...)
}
