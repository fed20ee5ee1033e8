package lockdebate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// ErrUnreachable is the error the Check functions wrap when a server does
// not answer.
var ErrUnreachable = errors.New("unreachable")

// UnreachableError names a server that did not answer and why.
type UnreachableError struct {
	What string // "Redis", "the database", "ZooKeeper"
	Addr string // as given, a DSN without its password
	Err  error  // why: the dial's or the first request's error
}

// Error says which server did not answer, where, and why.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s at %s is unreachable: %v", e.What, e.Addr, e.Err)
}

// Unwrap returns both ErrUnreachable and the cause.
func (e *UnreachableError) Unwrap() []error { return []error{ErrUnreachable, e.Err} }

// reachTimeout bounds each Check.
const reachTimeout = 5 * time.Second

// CheckRedis returns an *UnreachableError unless the Redis server at addr
// answers PING. It writes nothing.
func CheckRedis(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	rdb := NewRedisClient(addr)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return &UnreachableError{What: "Redis", Addr: addr, Err: err}
	}
	return nil
}

// ValidateDSN returns an error unless dsn is a go-sql-driver/mysql DSN that
// names a database.
func ValidateDSN(dsn string) error {
	_, err := parseDSN(dsn)
	return err
}

func parseDSN(dsn string) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("database DSN: %w", err)
	}
	if cfg.DBName == "" {
		return nil, fmt.Errorf("database DSN %s names no database (user:password@tcp(host:port)/database)", redactDSN(cfg))
	}
	return cfg, nil
}

// CheckMySQL returns an error unless dsn is valid (ValidateDSN) and the
// server answers (an *UnreachableError when it does not). It writes nothing.
func CheckMySQL(ctx context.Context, dsn string) error {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return &UnreachableError{What: "the database", Addr: redactDSN(cfg), Err: err}
	}
	return nil
}

// redactDSN is cfg's DSN without its password.
func redactDSN(cfg *mysql.Config) string {
	c := cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = "xxx"
	}
	return c.FormatDSN()
}

// CheckZK returns an *UnreachableError unless a session can be had from
// servers. It creates no node. The client logs to logger (nil: slog's
// default).
func CheckZK(ctx context.Context, servers []string, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if logger == nil {
		logger = slog.Default()
	}
	c, err := client.New(client.WithServers(servers...), client.WithLogger(logger))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return &UnreachableError{What: "ZooKeeper", Addr: strings.Join(servers, ","), Err: err}
	}
	return nil
}
