// Command discovery shows service discovery (recipes/discovery,
// curator-x-discovery's layout) as workers crash and come back.
//
// Ten worker processes (this command, started again by itself as
// subprocesses) each listen on a TCP port of their own on 127.0.0.1 and
// register it as an instance of the service "workers": a DYNAMIC instance,
// the ephemeral node <base>/workers/<id> holding the instance as Curator's
// JSON, kept by the worker's session (timeout 2 s). The parent is the
// client: a discovery Cache of the service, whose events it prints as the
// instance set it sees each time the set changes.
//
// Once the client sees all ten, the parent SIGKILLs three workers. A killed
// process unregisters nothing: its instance goes when the server expires its
// session, about 2 s later, and the client sees it go. The parent then
// starts the three again (the same ids, new ports); the client sees them
// come back. Then a Provider (round robin) of the service makes one call to
// each instance it hands out (a TCP connection that reads the worker's id),
// and the run ends with what the client saw against what happened:
//
//	client sees 7: w1 w2 w4 w5 w7 w8 w9 (-w3 -w6 -w10)
//	...
//	workers 10, killed 3, seen gone 3, seen back 3, final 10 of 10
//
// "seen gone" counts the killed workers whose instance the client saw
// removed, "seen back" those it then saw added again, and "final" the
// instances in the client's view at the end that are the live workers at
// their current ports.
//
// Usage:
//
//	go run ./examples/discovery [-zk host:port,...] [-workers N] [-kill K]
//
// Without -zk it starts a throwaway ZooKeeper server with zktest (the
// ZK_BACKEND and ZK_IMAGE environment variables choose how) and stops it at
// the end. Each run works under a fresh base path; the workers unregister at
// the end (Curator's containers go with their last child). The command exits
// non-zero on any error, and when the client did not see what happened.
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

	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// errMissed reports a client whose view did not follow the workers.
var errMissed = errors.New("the client did not see what happened to the workers")

func main() {
	if isWorker(os.Args[1:]) {
		os.Exit(workerMain(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "discovery example:", err)
		os.Exit(1)
	}
}

// settings are the demo's flags.
type settings struct {
	zk      string
	workers int
	kill    int
}

func parseFlags(args []string) (settings, error) {
	fs := flag.NewFlagSet("discovery", flag.ContinueOnError)
	zkFlag := fs.String("zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	workers := fs.Int("workers", 10, "worker processes (1 to 30)")
	kill := fs.Int("kill", 3, "workers to SIGKILL and start again (0 to -workers)")
	if err := fs.Parse(args); err != nil {
		return settings{}, err
	}
	s := settings{zk: *zkFlag, workers: *workers, kill: *kill}
	switch {
	case fs.NArg() > 0:
		return s, fmt.Errorf("unexpected arguments %q", fs.Args())
	case s.workers < 1 || s.workers > 30:
		return s, fmt.Errorf("-workers must be from 1 to 30, got %d", s.workers)
	case s.kill < 0 || s.kill > s.workers:
		return s, fmt.Errorf("-kill must be from 0 to -workers, got %d", s.kill)
	}
	return s, nil
}

// run is the whole demo. Its last line is "workers N, killed K, seen gone
// G, seen back B, final F of N".
func run(ctx context.Context, args []string, stdout io.Writer) error {
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
		base: fmt.Sprintf("/zkrecipes-examples/discovery-%016x", rand.Uint64())}
	r, err := d.play(ctx)
	if err != nil {
		return err
	}
	out.printf("workers %d, killed %d, seen gone %d, seen back %d, final %d of %d\n",
		s.workers, r.killed, r.gone, r.back, r.final, s.workers)
	if r.gone != r.killed || r.back != r.killed || r.final != s.workers || r.answered != s.workers {
		return fmt.Errorf("%w: killed %d, seen gone %d, seen back %d, final %d of %d, answered %d",
			errMissed, r.killed, r.gone, r.back, r.final, s.workers, r.answered)
	}
	return nil
}
