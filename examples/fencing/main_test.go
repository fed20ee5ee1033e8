package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/integration/lockdebate"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// asMainEnv makes the test binary run the command's main, for the tests of
// its exit status.
const asMainEnv = "FENCING_EXAMPLE_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) != "" {
		os.Args = append([]string{os.Args[0]}, strings.Split(os.Getenv(asMainEnv), "\n")...)
		main()
		os.Exit(0)
	}
	// The paused holders are this test binary again.
	lockdebate.ServeHolderIfChild()
	os.Exit(m.Run())
}

// TestShortRun runs the whole command on its own throwaway servers, with
// few rounds, and checks its tables: the fenced mutex refuses every stale
// write, the others take every one; Redis's failover makes two holders,
// its control and ZooKeeper's none.
func TestShortRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out bytes.Buffer
	args := []string{"-rounds", "2", "-redis-failover-rounds", "1", "-zk-failover-rounds", "1"}
	if err := run(ctx, args, &out); err != nil {
		t.Fatalf("run %q: %v\noutput:\n%s", args, err, out.String())
	}
	t.Logf("output:\n%s", out.String())
	for _, want := range []string{
		"| Redis SET NX PX, Lua release        |      2 |        2 |                     2 |                    0 |",
		"| MySQL lock row (unique key, expiry) |      2 |        2 |                     2 |                    0 |",
		"| zkrecipes mutex, Lost() checked     |      2 |        2 |                     2 |                    0 |",
		"| zkrecipes mutex + fencing token     |      2 |        0 |                     0 |                    2 |",
		"| Redis: primary killed before the lock key replicated, replica promoted |      1 |           1 |               0 |",
		"| Redis control: key replicated (WAIT 1) before the kill                 |      1 |           0 |               1 |",
		"| zkrecipes mutex: ensemble leader killed right after the grant          |      1 |           0 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no line starting %q in the output", want)
		}
	}
	for _, want := range []string{"throwaway ZooKeeper", "throwaway redis-server at 127.0.0.1:", "throwaway MariaDB at root@tcp(127.0.0.1:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("without flags the output should name %q", want)
		}
	}
}

// TestRefusesUnreachable gives the command one server that does not answer
// and two that do: it must exit with status 1 and a message naming the dead
// one, print nothing, and leave nothing on the live ones.
func TestRefusesUnreachable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	zk := zktest.ForTest(t)
	rs, err := lockdebate.StartRedis(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.Close() })
	db, err := lockdebate.StartMariaDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	const dead = "127.0.0.1:1" // tcpmux: privileged, and nothing listens

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"redis", []string{"-redis", dead, "-mysql", db.DSN(), "-zk", zk.ConnectString()},
			"fencing example: Redis at " + dead + " is unreachable: "},
		{"mysql", []string{"-redis", rs.Addr(), "-mysql", "root@tcp(" + dead + ")/lockdebate", "-zk", zk.ConnectString()},
			"fencing example: the database at root@tcp(" + dead + ")/lockdebate is unreachable: "},
		{"zookeeper", []string{"-redis", rs.Addr(), "-mysql", db.DSN(), "-zk", dead},
			"fencing example: ZooKeeper at " + dead + " is unreachable: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, tc.args)
			if code != 1 {
				t.Errorf("exit status %d, want 1; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("printed %q before refusing", stdout)
			}
			checkEmpty(t, rs.Addr(), db.DSN(), zk.Addrs())
		})
	}
}

func TestRejectsBadFlags(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	itest.CheckRejectsFlags(t, run,
		[]string{"-rounds", "0"},
		[]string{"-rounds", "1001"},
		[]string{"-lease", "1ms"},
		[]string{"-session", "0"},
		[]string{"-redis-failover-rounds", "-1"},
		[]string{"-zk-failover-rounds", "21"},
		[]string{"-zk", ","},
		[]string{"-mysql", "no-database@tcp(127.0.0.1:1)/"},
		[]string{"-mysql", "not a dsn"},
		[]string{"-nosuchflag"},
		[]string{"extra"},
	)
	goleak.VerifyNone(t, ignore)
}

// runMain runs the command's main in a process of its own.
func runMain(t *testing.T, args []string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), asMainEnv+"="+strings.Join(args, "\n"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// checkEmpty fails t if the Redis server has a key, the database a table,
// or ZooKeeper the examples' root.
func checkEmpty(t *testing.T, redisAddr, dsn string, zk []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := lockdebate.NewRedisClient(redisAddr)
	defer rdb.Close()
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Errorf("Redis has %d keys (%v), want none", n, err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the database has %d tables (%v), want none", n, err)
	}
	c, err := client.New(client.WithServers(zk...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := c.Exists(ctx, lockdebate.ZKRoot); err != nil || ok {
		t.Errorf("ZooKeeper has %s (%v), want nothing", lockdebate.ZKRoot, err)
	}
}
