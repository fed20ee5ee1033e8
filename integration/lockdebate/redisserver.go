package lockdebate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// RedisServer is a throwaway redis-server from Debian's package: bound to
// 127.0.0.1 on a port of its own, with its own directory and no persistence,
// run as a plain child process (never a system service) until Close.
type RedisServer struct {
	addr string
	dir  string
	proc *proc
}

// StartRedis starts a standalone redis-server and returns once it answers
// PING. Extra arguments are redis-server options ("--replicaof", host, port).
func StartRedis(ctx context.Context, extra ...string) (*RedisServer, error) {
	bin, err := program("redis-server")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lockdebate-redis-")
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		s, err := startRedisOnce(ctx, bin, dir, extra)
		if err == nil {
			return s, nil
		}
		// Another server may have drawn the same port: draw again.
		if s == nil || !s.proc.addrInUse() || attempt == 3 {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
}

func startRedisOnce(ctx context.Context, bin, dir string, extra []string) (*RedisServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		// A replica's first sync starts at once, not after the 5 s default.
		"--repl-diskless-sync-delay", "0",
	}, extra...)
	p, err := startProc("redis-server", filepath.Join(dir, "redis.log"), bin, args...)
	if err != nil {
		return nil, err
	}
	s := &RedisServer{addr: loopback(port), dir: dir, proc: p}
	if err := s.waitReady(ctx); err != nil {
		_ = p.kill()
		return s, err
	}
	return s, nil
}

// waitReady polls PING until the server answers, exits or ctx ends.
func (s *RedisServer) waitReady(ctx context.Context) error {
	rdb := NewRedisClient(s.addr)
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		err := rdb.Ping(pctx).Err()
		pcancel()
		if err == nil {
			return nil
		}
		if xerr := s.proc.exited(); xerr != nil {
			return xerr
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redis-server at %s did not answer PING: %w (last: %v)", s.addr, ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Addr is the server's host:port.
func (s *RedisServer) Addr() string { return s.addr }

// Kill ends the server at once with SIGKILL, as a crashed machine would: what
// it had not yet sent to its replicas is lost.
func (s *RedisServer) Kill() error { return s.proc.kill() }

// Close kills the server and removes its directory. It may be called after
// Kill, and more than once.
func (s *RedisServer) Close() error {
	err := s.proc.kill()
	return errors.Join(err, os.RemoveAll(s.dir))
}

// NewRedisClient returns a go-redis client for addr with short timeouts and
// no retries (one dial per connection), speaking RESP2 with no client-side extras, so that each command
// is exactly the one the caller sends.
func NewRedisClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                     addr,
		Protocol:                 2,
		DisableIdentity:          true,
		MaxRetries:               -1,
		DialerRetries:            1,
		DialTimeout:              2 * time.Second,
		ReadTimeout:              2 * time.Second,
		WriteTimeout:             2 * time.Second,
		PoolSize:                 4,
		ContextTimeoutEnabled:    true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}
