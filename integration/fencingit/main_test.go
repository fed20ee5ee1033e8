// Package fencingit plays the seeds' lock debate on real servers and asserts
// what each lock does when its holder is paused past its lease or session
// (Martin Kleppmann's scenario), and when the lock service fails over: a
// Redis lock (SET NX PX, Lua release) on Debian's redis-server, a MySQL lock
// row on Debian's MariaDB, and zkrecipes' mutex without and with its fencing
// token carried into the write. The servers are throwaway processes started
// here (package lockdebate; ZooKeeper through zktest).
package fencingit

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/integration/lockdebate"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The servers the tests share.
var (
	redisServer *lockdebate.RedisServer
	mariaDB     *lockdebate.MariaDB
	zooKeeper   *zktest.Cluster
)

func TestMain(m *testing.M) {
	// The paused holder runs in a process of its own: this test binary again.
	lockdebate.ServeHolderIfChild()
	code := runWithServers(m)
	// Once the servers are stopped, no goroutine may outlive them.
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "fencingit: goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// runWithServers starts the shared servers, runs the tests and stops them.
func runWithServers(m *testing.M) (code int) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "fencingit: %s (tests are never skipped): %v\n", what, err)
		return 1
	}
	// The clients' connection states are noise here: warnings and errors only.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	var err error
	if redisServer, err = lockdebate.StartRedis(ctx); err != nil {
		return fail("cannot start redis-server", err)
	}
	defer closeOrFail(&code, "redis-server", redisServer.Close)
	if mariaDB, err = lockdebate.StartMariaDB(ctx); err != nil {
		return fail("cannot start MariaDB", err)
	}
	defer closeOrFail(&code, "MariaDB", mariaDB.Close)
	if zooKeeper, err = zktest.Start(ctx); err != nil {
		return fail("cannot start ZooKeeper", err)
	}
	defer closeOrFail(&code, "ZooKeeper", zooKeeper.Close)
	fmt.Fprintf(os.Stderr, "fencingit: redis-server at %s, MariaDB at %s, ZooKeeper %s at %s\n",
		redisServer.Addr(), mariaDB.DSN(), zooKeeper, zooKeeper.ConnectString())

	return m.Run()
}

// closeOrFail closes a server after the tests, failing the run if it cannot.
func closeOrFail(code *int, what string, close func() error) {
	if err := close(); err != nil {
		fmt.Fprintf(os.Stderr, "fencingit: stop %s: %v\n", what, err)
		*code = 1
	}
}
