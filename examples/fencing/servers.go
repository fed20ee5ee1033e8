package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/go-zkrecipes/zkrecipes/integration/lockdebate"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// servers are where the paused-holder rounds run, and the throwaway ones
// to stop at the end.
type servers struct {
	redis, mysql string
	zk           []string
	closers      []func() error
}

// startServers checks every server the flags name, before anything is
// started or written anywhere, then starts throwaway ones for the rest.
func startServers(ctx context.Context, s settings, logger *slog.Logger, stdout io.Writer) (_ *servers, err error) {
	srv := &servers{redis: s.redis, mysql: s.mysql}
	if s.zk != "" {
		// A given -zk starts nothing: this only splits it.
		if srv.zk, _, err = zktest.ServersOrThrowaway(ctx, s.zk); err != nil {
			return nil, err
		}
		if err := lockdebate.CheckZK(ctx, srv.zk, logger); err != nil {
			return nil, err
		}
	}
	if s.redis != "" {
		if err := lockdebate.CheckRedis(ctx, s.redis); err != nil {
			return nil, err
		}
	}
	if s.mysql != "" {
		if err := lockdebate.CheckMySQL(ctx, s.mysql); err != nil {
			return nil, err
		}
	}

	defer func() {
		if err != nil {
			err = errors.Join(err, srv.close())
		}
	}()
	if s.zk == "" {
		zk, cluster, err := zktest.ServersOrThrowaway(ctx, "", zktest.WithLogger(logger))
		if err != nil {
			return nil, fmt.Errorf("start a throwaway ZooKeeper: %w", err)
		}
		srv.closers = append(srv.closers, cluster.Close)
		srv.zk = zk
		fmt.Fprintf(stdout, "throwaway ZooKeeper (%s) at %s\n", cluster, cluster.ConnectString())
	}
	if s.redis == "" {
		r, err := lockdebate.StartRedis(ctx)
		if err != nil {
			return nil, fmt.Errorf("start a throwaway redis-server: %w", err)
		}
		srv.closers = append(srv.closers, r.Close)
		srv.redis = r.Addr()
		fmt.Fprintf(stdout, "throwaway redis-server at %s\n", srv.redis)
	}
	if s.mysql == "" {
		m, err := lockdebate.StartMariaDB(ctx)
		if err != nil {
			return nil, fmt.Errorf("start a throwaway MariaDB: %w", err)
		}
		srv.closers = append(srv.closers, m.Close)
		srv.mysql = m.DSN()
		fmt.Fprintf(stdout, "throwaway MariaDB at %s\n", srv.mysql)
	}
	return srv, nil
}

// close stops the throwaway servers, the last started first.
func (srv *servers) close() error {
	var errs []error
	for i := len(srv.closers) - 1; i >= 0; i-- {
		errs = append(errs, srv.closers[i]())
	}
	srv.closers = nil
	return errors.Join(errs...)
}

// playZKFailover starts a throwaway 3-server ensemble and kills its leader
// right after grants.
func playZKFailover(ctx context.Context, rounds int, logger *slog.Logger, stdout io.Writer) (_ lockdebate.FailoverTally, err error) {
	ensemble, err := zktest.Start(ctx, zktest.WithServers(3), zktest.WithLogger(logger))
	if err != nil {
		return lockdebate.FailoverTally{}, fmt.Errorf("start a throwaway ZooKeeper ensemble: %w", err)
	}
	defer func() { err = errors.Join(err, ensemble.Close()) }()
	fmt.Fprintf(stdout, "ZooKeeper failover: %s on a throwaway ensemble (%s) at %s\n", count(rounds, "round"), ensemble, ensemble.ConnectString())
	// Every leader kill suspends both clients: warnings the scenario causes
	// on purpose, left out.
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	return lockdebate.PlayZKFailover(ctx, ensemble, lockdebate.ZKFailoverConfig{Rounds: rounds, Logger: quiet})
}
