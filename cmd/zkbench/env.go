package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// benchRoot is the parent of every zkbench process's own directory. It is a
// container node: the server removes it once the last run's directory is gone.
const benchRoot = "/zkbench"

// env is what every run of one zkbench process shares: the servers, a
// logger, and an admin session that sets up and removes the run directories.
type env struct {
	servers []string
	cluster *zktest.Cluster // nil when the servers were given
	logger  *slog.Logger    // for the workers' clients: warnings only
	admin   *zk.Conn
	base    string // this process's own directory, removed by close
	runs    atomic.Int64
	// link, with -count, carries every worker's connection and counts its
	// requests (see count.go); nil otherwise.
	link *faultlink.Link
	// The java benches' counting proxies (see javaServers).
	proxyOnce  sync.Once
	proxies    []net.Listener
	proxyAddrs []string
	proxyErr   error
}

// openEnv connects to the servers zkFlag (-zk) names, or starts a throwaway
// server on backend when zkFlag is empty ("" leaves the choice to
// ZK_BACKEND), and makes this process's directory.
// With count, the workers' requests are counted (see count.go).
func openEnv(ctx context.Context, zkFlag, backend string, count bool, stderr io.Writer) (_ *env, err error) {
	e := &env{
		logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		base:   fmt.Sprintf("%s/run-%016x", benchRoot, rand.Uint64()),
	}
	if count {
		e.link = faultlink.New()
	}
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	opts := []zktest.Option{zktest.WithLogger(slog.New(slog.NewTextHandler(stderr, nil)))}
	if backend != "" {
		opts = append(opts, zktest.WithBackend(zktest.Backend(backend)))
	}
	e.servers, e.cluster, err = zktest.ServersOrThrowaway(ctx, zkFlag, opts...)
	if err != nil {
		return nil, err
	}
	e.admin, err = dial(ctx, e.servers, 10*time.Second, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("admin session: %w", err)
	}
	if err := makeBase(e.admin, e.base); err != nil {
		return nil, err
	}
	return e, nil
}

// makeBase creates the process's own directory under the benchRoot
// container, which the server may reap between the two creates when another
// zkbench just removed its own directory: then it tries again.
func makeBase(conn *zk.Conn, base string) error {
	for attempt := 0; ; attempt++ {
		if err := ensureContainer(conn, benchRoot); err != nil {
			return err
		}
		_, err := conn.Create(base, nil, 0, worldACL)
		if err == nil {
			return nil
		}
		if !errors.Is(err, zk.ErrNoNode) || attempt == 10 {
			return fmt.Errorf("create %s: %w", base, err)
		}
	}
}

// describe names where the runs go, for the -all settings line.
func (e *env) describe() string {
	if e.cluster != nil {
		return fmt.Sprintf("throwaway %s at %s", e.cluster, e.cluster.ConnectString())
	}
	return fmt.Sprintf("given ensemble %v", e.servers)
}

// runDir makes a fresh directory for one run.
func (e *env) runDir(name string) (string, error) {
	dir := fmt.Sprintf("%s/%s-%d", e.base, name, e.runs.Add(1))
	return dir, ensureNode(e.admin, dir)
}

// close removes this process's directory and stops what openEnv started.
func (e *env) close() {
	if e.admin != nil {
		if err := deleteTree(e.admin, e.base); err != nil {
			e.logger.Warn("could not remove the benchmark's nodes", "path", e.base, "err", err)
		}
		e.admin.Close()
	}
	for _, ln := range e.proxies {
		_ = ln.Close()
	}
	if e.link != nil {
		e.link.Close()
	}
	if e.cluster != nil {
		if err := e.cluster.Close(); err != nil {
			e.logger.Warn("could not stop the throwaway ZooKeeper", "err", err)
		}
	}
}

// dial opens a bare go-zookeeper session and waits until it is established.
// When events is not nil, every watch event the session receives (node
// created, deleted, changed, children changed) adds one to it. A nil dialer
// is go-zookeeper's own.
func dial(ctx context.Context, servers []string, timeout time.Duration, events *atomic.Int64, dialer zk.Dialer) (*zk.Conn, error) {
	established := make(chan struct{})
	var once sync.Once
	cb := func(ev zk.Event) {
		switch ev.Type {
		case zk.EventSession:
			if ev.State == zk.StateHasSession {
				once.Do(func() { close(established) })
			}
		case zk.EventNodeCreated, zk.EventNodeDeleted, zk.EventNodeDataChanged, zk.EventNodeChildrenChanged:
			if events != nil {
				events.Add(1)
			}
		}
	}
	if dialer == nil {
		dialer = net.DialTimeout
	}
	conn, _, err := zk.Connect(servers, timeout,
		zk.WithEventCallback(cb),
		zk.WithLogInfo(false),
		zk.WithDialer(dialer),
	)
	if err != nil {
		return nil, err
	}
	select {
	case <-established:
		return conn, nil
	case <-ctx.Done():
		conn.Close()
		return nil, fmt.Errorf("no session with %v: %w", servers, ctx.Err())
	}
}

var worldACL = zk.WorldACL(zk.PermAll)

// ensureNode creates a persistent node whose parent exists, unless it exists.
func ensureNode(conn *zk.Conn, p string) error {
	if _, err := conn.Create(p, nil, 0, worldACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("create %s: %w", p, err)
	}
	return nil
}

// ensureContainer creates a container node whose parent exists, unless it exists.
func ensureContainer(conn *zk.Conn, p string) error {
	if _, err := conn.CreateContainer(p, nil, zk.FlagContainer, worldACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("create %s: %w", p, err)
	}
	return nil
}

// deleteTree deletes p and everything under it, children first. Nodes that
// vanish meanwhile (ephemerals of closing sessions, reaped containers) are
// no error.
func deleteTree(conn *zk.Conn, p string) error {
	for attempt := 0; ; attempt++ {
		kids, _, err := conn.Children(p)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := deleteTree(conn, path.Join(p, k)); err != nil {
				return err
			}
		}
		err = conn.Delete(p, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case errors.Is(err, zk.ErrNotEmpty) && attempt < 5:
			continue // a child appeared meanwhile
		default:
			return fmt.Errorf("delete %s: %w", p, err)
		}
	}
}
