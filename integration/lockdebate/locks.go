package lockdebate

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"

	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// errNotOurs is a release that found the lock held by someone else, or by
// no one: the holding had ended before.
var errNotOurs = errors.New("the lock was no longer ours")

// pollInterval is how often the Redis and MySQL locks try again to take a
// lock that is held: they have nothing to wait on.
const pollInterval = 10 * time.Millisecond

// lockHandle is one holding of a lock by one contender, written as the
// lock's users write it: acquire, check, token, release, once each.
type lockHandle interface {
	// acquire waits until the contender holds the lock, or ctx ends.
	acquire(ctx context.Context) error
	// check reports whether the contender still holds the lock, as far as
	// it can tell: the careful user asks this before writing.
	check(ctx context.Context) (bool, error)
	// token is the fencing token the contender's writes carry; 0 for a
	// lock used without one.
	token(ctx context.Context) (int64, error)
	// release gives the lock up; errNotOurs (or ErrLost) when the holding
	// had already ended.
	release(ctx context.Context) error
}

// redisLock is one holding of the seeds' Redis lock.
type redisLock struct {
	rdb   *redis.Client
	key   string
	value string // this holding's, unique: the release deletes only it
	lease time.Duration
}

// releaseScript deletes the key only while it holds this holding's value, in
// one step on the server.
var releaseScript = redis.NewScript(`
if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("del", KEYS[1])
end
return 0`)

func (l *redisLock) acquire(ctx context.Context) error {
	for {
		ok, err := l.tryAcquire(ctx)
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// tryAcquire is SET key value NX PX lease: true when the key was set.
func (l *redisLock) tryAcquire(ctx context.Context) (bool, error) {
	err := l.rdb.Do(ctx, "SET", l.key, l.value, "NX", "PX", l.lease.Milliseconds()).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil // held by someone
	}
	return err == nil, err
}

func (l *redisLock) check(ctx context.Context) (bool, error) {
	v, err := l.rdb.Get(ctx, l.key).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return v == l.value, err
}

func (l *redisLock) token(context.Context) (int64, error) { return 0, nil }

func (l *redisLock) release(ctx context.Context) error {
	n, err := releaseScript.Run(ctx, l.rdb, []string{l.key}, l.value).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return errNotOurs
	}
	return nil
}

// sqlLock is one holding of the seeds' MySQL lock: a row in a table with a
// unique key on the lock's name. Taking the lock clears an expired row and
// inserts one; a duplicate key means it is held.
type sqlLock struct {
	db    *sql.DB
	table string
	name  string
	owner string // this holding's, unique: the release deletes only it
	lease time.Duration
}

// mysqlDuplicateKey is ER_DUP_ENTRY.
const mysqlDuplicateKey = 1062

func (l *sqlLock) acquire(ctx context.Context) error {
	for {
		ok, err := l.tryAcquire(ctx)
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

func (l *sqlLock) tryAcquire(ctx context.Context) (bool, error) {
	if _, err := l.db.ExecContext(ctx,
		`DELETE FROM `+l.table+` WHERE name = ? AND expires_at < NOW(6)`, l.name); err != nil {
		return false, err
	}
	_, err := l.db.ExecContext(ctx,
		`INSERT INTO `+l.table+` (name, owner, expires_at) VALUES (?, ?, NOW(6) + INTERVAL ? MICROSECOND)`,
		l.name, l.owner, l.lease.Microseconds())
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == mysqlDuplicateKey {
		return false, nil
	}
	return err == nil, err
}

func (l *sqlLock) check(ctx context.Context) (bool, error) {
	var n int
	err := l.db.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM `+l.table+` WHERE name = ? AND owner = ? AND expires_at > NOW(6)`,
		l.name, l.owner).Scan(&n)
	return n == 1, err
}

func (l *sqlLock) token(context.Context) (int64, error) { return 0, nil }

func (l *sqlLock) release(ctx context.Context) error {
	res, err := l.db.ExecContext(ctx, `DELETE FROM `+l.table+` WHERE name = ? AND owner = ?`, l.name, l.owner)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(errNotOurs, err)
	}
	return nil
}

// zkLock is one holding of zkrecipes' mutex: a handle of its own (handles
// cost no I/O). With fenced, its writes carry Token.
type zkLock struct {
	m      *mutex.Mutex
	fenced bool
}

func (l *zkLock) acquire(ctx context.Context) error { return l.m.Lock(ctx) }

// check is what a careful user asks: has Lost() closed? (IsHeld is false
// from the moment it has, and already once the session ended.)
func (l *zkLock) check(context.Context) (bool, error) {
	select {
	case <-l.m.Lost():
		return false, nil
	default:
		return l.m.IsHeld(), nil
	}
}

func (l *zkLock) token(ctx context.Context) (int64, error) {
	if !l.fenced {
		return 0, nil
	}
	return l.m.Token(ctx)
}

func (l *zkLock) release(ctx context.Context) error { return l.m.Unlock(ctx) }
