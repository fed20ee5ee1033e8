// Command election shows leaders taking turns: ten participants, one
// leader at a time.
//
// Ten goroutines start together, each its own ZooKeeper session (as if each
// were a separate process), and each joins one election with election.Run
// (Curator's LeaderSelector layout) under its own id. Each leads once: its
// term prints one line, holds the leadership for a moment and returns, and
// the next in the queue leads. The command checks, in process, that no two
// terms ever overlapped and that every term's fencing token (the creation
// zxid of the leader's node) is greater than the one before:
//
//	term 1: p7 token 0x1b
//	term 2: p3 token 0x1c
//	...
//	terms 10, overlapping 0, tokens increasing: true
//
// Usage:
//
//	go run ./examples/election [-zk host:port,...] [-participants N]
//
// Without -zk it starts a throwaway ZooKeeper server with zktest (the
// ZK_BACKEND and ZK_IMAGE environment variables choose how) and stops it at
// the end. Each run works under a fresh base path; its nodes are containers
// or ephemeral, so the server removes them. The command exits non-zero on
// any error, and when two terms overlapped or a token did not grow.
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
	"strconv"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// errUnsafe reports that two terms overlapped or a token did not grow.
var errUnsafe = errors.New("leadership was not exclusive")

// hold is how long each leader keeps its term.
const hold = 50 * time.Millisecond

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "election example:", err)
		os.Exit(1)
	}
}

// detector sees every term start and end in this process.
type detector struct {
	mu         sync.Mutex
	out        io.Writer
	terms      int   // terms started
	active     int   // terms running now
	overlaps   int   // terms that started while another was running
	lastToken  int64 // the previous term's token
	increasing bool  // every token so far was greater than the one before
}

// begin records a term's start and prints its line.
func (d *detector) begin(id string, token int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.terms++
	if d.active > 0 {
		d.overlaps++
	}
	d.active++
	if token <= d.lastToken {
		d.increasing = false
	}
	d.lastToken = token
	fmt.Fprintf(d.out, "term %d: %s token 0x%x\n", d.terms, id, token)
}

// end records a term's end.
func (d *detector) end() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active--
}

// run is the whole program. Its last line is
// "terms N, overlapping K, tokens increasing: B".
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("election", flag.ContinueOnError)
	zkFlag := fs.String("zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	participants := fs.Int("participants", 10, "participants, each with its own session, each leading once (1 to 1000)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *participants < 1 || *participants > 1000:
		return fmt.Errorf("-participants must be from 1 to 1000, got %d", *participants)
	}
	// The connection states of a dozen sessions are noise: warnings only.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	servers, cluster, err := zktest.ServersOrThrowaway(ctx, *zkFlag, zktest.WithLogger(logger))
	if err != nil {
		return err
	}
	defer cluster.Close()
	if cluster != nil {
		fmt.Fprintf(stdout, "throwaway ZooKeeper (%s) at %s\n", cluster, cluster.ConnectString())
	}
	path := fmt.Sprintf("/zkrecipes-examples/election-%016x/leader", rand.Uint64())
	fmt.Fprintf(stdout, "%d participants take turns at %s\n", *participants, path)

	d := &detector{out: stdout, increasing: true}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, *participants)
	for i := range *participants {
		wg.Go(func() {
			if errs[i] = participant(ctx, servers, logger, path, "p"+strconv.Itoa(i+1), d); errs[i] != nil {
				cancel() // send everyone home
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "terms %d, overlapping %d, tokens increasing: %t\n", d.terms, d.overlaps, d.increasing)
	if d.overlaps > 0 || !d.increasing || d.terms != *participants {
		return fmt.Errorf("%w: %d terms of %d participants, %d overlapping, tokens increasing: %t",
			errUnsafe, d.terms, *participants, d.overlaps, d.increasing)
	}
	return nil
}

// participant is one process: a session of its own, one term.
func participant(ctx context.Context, servers []string, logger *slog.Logger, path, id string, d *detector) error {
	c, err := client.New(client.WithServers(servers...), client.WithLogger(logger),
		client.WithSessionTimeout(10*time.Second))
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	defer c.Close()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = c.Start(sctx)
	cancel()
	if err != nil {
		return fmt.Errorf("%s: connect: %w", id, err)
	}
	err = election.Run(ctx, c, path, func(ctx context.Context, t *election.Term) error {
		d.begin(t.ID(), t.Token())
		defer d.end()
		select { // leading, unless leadership may be gone
		case <-time.After(hold):
			return nil
		case <-ctx.Done():
			return fmt.Errorf("term ended early: %w", context.Cause(ctx))
		}
	}, election.WithID(id), election.WithRunOnce())
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	return nil
}
