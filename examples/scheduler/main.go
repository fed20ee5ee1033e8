// Command scheduler shows a nightly job that runs exactly once, although its
// leader is killed in the middle of a night.
//
// Three scheduler processes (this command, started again by itself as
// subprocesses) join one leader election (election.Run, each with its id).
// A demo clock, kept by the parent in a ZooKeeper node, advances one
// "night" every 600 ms. Whoever leads runs every night whose time has come
// and that has no record yet, in order: the job takes about 250 ms, then
// it is recorded at nights/<k> as "runner=<id> token=0x<t>".
//
// How a night is recorded at most once, even by a deposed leader: the
// record is created in one transaction (client.Multi) with a check on the
// leader's own term node (zk.CheckVersionRequest, any version): the write
// commits only while that node exists. The node is first in the election's
// queue for as long as it exists (later nodes have higher sequence
// numbers), so while it exists nobody else leads; once the leader's
// session has expired, or its term's node was released, the transaction
// is refused. A zombie leader (paused, partitioned) therefore cannot commit
// late. The record is a create, so a night already recorded fails with
// zk.ErrNodeExists and is never written twice; the fencing token (the
// term's Token, the czxid of its node) goes into the record so the run
// record shows which term ran each night. (The other way, a write that
// carries the token and is refused once a larger token has written, needs a
// store that compares tokens; inside ZooKeeper the guard is simpler and
// refuses a deposed leader even before a successor has written.)
//
// The parent SIGKILLs the leader process as it starts night 4's job. That
// job never finishes and is never recorded; the killed process's session
// expires after its timeout (2 s), a survivor takes over and runs night 4
// and every night that passed meanwhile. Each job start leaves a node
// starts/<k>-<id>, marked "finished" once the job ran to its end and
// "recorded" inside the record's own transaction. The report counts, from
// ZooKeeper: nights with no record (missed); nights recorded by more than
// one process, from those marks (run twice: the record is a create inside
// the guarded transaction, so this is 0 by construction, and the count
// checks it); and nights whose job more than one process started (started
// twice: the killed leader's night). A job cut short is run again, so work
// a job does outside ZooKeeper must itself be idempotent or fenced with the
// token; what this design guarantees is one record a night, made by a
// process while it led:
//
//	night 4: runner=s2 token=0x2f (also started by s1, killed mid-job)
//	...
//	nights 10, run twice 0, missed 0
//
// Usage:
//
//	go run ./examples/scheduler [-zk host:port,...] [-nights N] [-kill K]
//
// Without -zk it starts a throwaway ZooKeeper server with zktest (the
// ZK_BACKEND and ZK_IMAGE environment variables choose how) and stops it at
// the end. Each run works under a fresh base path, deleted at the end. The
// command exits non-zero on any error, and when a night was missed or run
// twice.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// errNotOnce reports a night missed or run twice.
var errNotOnce = errors.New("the nightly job did not run exactly once a night")

func main() {
	if isScheduler(os.Args[1:]) {
		os.Exit(schedulerMain(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scheduler example:", err)
		os.Exit(1)
	}
}

// settings are the demo's flags.
type settings struct {
	zk         string
	nights     int
	kill       int           // the night whose job the leader is killed in; 0: none
	night, job time.Duration // a night's length and a job's
	schedulers int
}

func parseFlags(args []string) (settings, error) {
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	zkFlag := fs.String("zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	nights := fs.Int("nights", 10, "nights to run (1 to 100)")
	kill := fs.Int("kill", 4, "SIGKILL the leader in the middle of this night's job (0: never)")
	if err := fs.Parse(args); err != nil {
		return settings{}, err
	}
	s := settings{zk: *zkFlag, nights: *nights, kill: *kill,
		night: 600 * time.Millisecond, job: 250 * time.Millisecond, schedulers: 3}
	switch {
	case fs.NArg() > 0:
		return s, fmt.Errorf("unexpected arguments %q", fs.Args())
	case s.nights < 1 || s.nights > 100:
		return s, fmt.Errorf("-nights must be from 1 to 100, got %d", s.nights)
	case s.kill < 0 || s.kill > s.nights:
		return s, fmt.Errorf("-kill must be from 0 to -nights, got %d", s.kill)
	}
	return s, nil
}

// run is the whole demo. Its last line is "nights N, run twice K, missed M".
func run(ctx context.Context, args []string, stdout io.Writer) (err error) {
	s, err := parseFlags(args)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	out := &lockedWriter{w: stdout}
	servers, cluster, err := zktest.ServersOrThrowaway(ctx, s.zk, zktest.WithLogger(logger))
	if err != nil {
		return err
	}
	defer cluster.Close()
	if cluster != nil {
		out.printf("throwaway ZooKeeper (%s) at %s\n", cluster, cluster.ConnectString())
	}
	d := &demo{s: s, servers: servers, logger: logger, out: out,
		base: fmt.Sprintf("/zkrecipes-examples/scheduler-%016x", rand.Uint64())}
	nights, killed, err := d.play(ctx)
	if err != nil {
		return err
	}
	t := report(out, nights, killed)
	if len(t.cutShort) > 0 {
		out.printf("started twice %d, not recorded: %s. A job cut short is run again by the next leader; "+
			"what is guaranteed is one record a night, made by a process while it led\n",
			t.startedTwice, strings.Join(t.cutShort, ", "))
	}
	out.printf("nights %d, run twice %d, missed %d\n", s.nights, t.runTwice, t.missed)
	if t.runTwice > 0 || t.missed > 0 {
		return fmt.Errorf("%w: run twice %d, missed %d", errNotOnce, t.runTwice, t.missed)
	}
	return nil
}
