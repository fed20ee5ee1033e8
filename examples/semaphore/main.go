// Command semaphore is the shop's packing room: ten packers, three courier
// licences.
//
// The courier's label API lets the shop print at most three labels at once.
// Ten packers start together, each its own ZooKeeper session (as if each were
// a separate process), and share the three licences through one distributed
// semaphore (recipes/semaphore). A packer holding a lease prints its label,
// then gives the lease back. The command counts the leases held at once in
// process, and at every grant it also counts on the server the lease nodes
// that were there when the grant was made:
//
//	packer 4 holds lease-0000000002, in use: 7 1 4
//	...
//	on the server: at most 3 lease nodes at a grant
//	max at once 3 of 3, over the limit 0
//
// Usage:
//
//	go run ./examples/semaphore [-zk host:port,...] [-packers N] [-licences N]
//
// Without -zk it starts a throwaway ZooKeeper server with zktest (the
// ZK_BACKEND and ZK_IMAGE environment variables choose how) and stops it at
// the end. Each run works under a fresh base path; its nodes are containers or
// ephemeral, so the server removes them. The command exits non-zero on any
// error, and when more leases than the limit were held at once.
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
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// errOverLimit reports that more leases than the limit were held at once.
var errOverLimit = errors.New("more labels printed at once than licensed")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "semaphore example:", err)
		os.Exit(1)
	}
}

// room is what the packers share in this process: the output and the count
// of who holds a lease.
type room struct {
	servers  []string
	logger   *slog.Logger
	sem      string // the semaphore's path
	licences int

	mu         sync.Mutex
	out        io.Writer
	holding    []int // packers holding a lease now, in grant order
	peak       int   // most leases held at once, counted here
	serverPeak int   // most lease nodes the server had at a grant
}

// run is the whole program. Its last line is "max at once N of L, over the limit K".
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("semaphore", flag.ContinueOnError)
	zkFlag := fs.String("zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	packers := fs.Int("packers", 10, "packers starting at once, each with its own session (1 to 1000)")
	licences := fs.Int("licences", 3, "labels the courier lets the shop print at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case *packers < 1 || *packers > 1000:
		return fmt.Errorf("-packers must be from 1 to 1000, got %d", *packers)
	case *licences < 1:
		return fmt.Errorf("-licences must be at least 1, got %d", *licences)
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
	sem := fmt.Sprintf("/zkrecipes-examples/packing-%016x/courier-api", rand.Uint64())
	fmt.Fprintf(stdout, "%d courier licences at %s, %d packers\n", *licences, sem, *packers)
	r := &room{servers: servers, logger: logger, sem: sem, licences: *licences, out: stdout}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg, ready sync.WaitGroup
	start := make(chan struct{}) // closed once every packer is connected
	errs := make([]error, *packers)
	ready.Add(*packers)
	for i := range *packers {
		wg.Go(func() {
			if errs[i] = r.packer(ctx, i+1, &ready, start); errs[i] != nil {
				cancel() // send everyone home
			}
		})
	}
	ready.Wait()
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	over := max(r.peak, r.serverPeak, *licences) - *licences
	fmt.Fprintf(stdout, "on the server: at most %d lease nodes at a grant\n", r.serverPeak)
	fmt.Fprintf(stdout, "max at once %d of %d, over the limit %d\n", r.peak, *licences, over)
	if over > 0 {
		return fmt.Errorf("%w: %d held here, %d lease nodes on the server", errOverLimit, r.peak, r.serverPeak)
	}
	return nil
}

// packer is one process: a session of its own, one lease, one label.
func (r *room) packer(ctx context.Context, id int, ready *sync.WaitGroup, start <-chan struct{}) error {
	c, err := client.New(client.WithServers(r.servers...), client.WithLogger(r.logger),
		client.WithSessionTimeout(10*time.Second))
	if err == nil {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err = c.Start(sctx)
		cancel()
		defer c.Close()
	}
	ready.Done()
	if err != nil {
		return fmt.Errorf("packer %d: connect: %w", id, err)
	}
	<-start
	s, err := semaphore.New(c, r.sem, r.licences, semaphore.WithData([]byte("packer "+strconv.Itoa(id))))
	if err != nil {
		return fmt.Errorf("packer %d: %w", id, err)
	}
	lease, err := s.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("packer %d: acquire: %w", id, err)
	}
	release := func() error { // even after a cancel, but not forever
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return lease.Release(rctx)
	}
	// On the server: the lease nodes no newer than ours all existed when our
	// grant was made (names are never reused), so they must fit the limit.
	seq := func(name string) int { n, _ := strconv.Atoi(name[max(0, len(name)-10):]); return n }
	kids, _, err := c.Children(ctx, path.Join(r.sem, semaphore.LeasesDir))
	if err != nil {
		_ = release()
		return fmt.Errorf("packer %d: list the leases: %w", id, err)
	}
	name := path.Base(lease.Node())
	onServer := 0
	for _, k := range kids {
		if seq(k) <= seq(name) {
			onServer++
		}
	}
	if i := strings.LastIndex(name, semaphore.LeaseName); i >= 0 {
		name = name[i:] // drop the protection prefix _c_<uuid>-
	}
	r.enter(id, name, onServer)
	select { // printing the label, unless the lease may be gone
	case <-time.After(200 * time.Millisecond):
	case <-lease.Lost():
		err = fmt.Errorf("packer %d: lost its lease while printing", id)
	case <-ctx.Done():
		err = ctx.Err()
	}
	r.leave(id)
	if rerr := release(); rerr != nil && err == nil {
		err = fmt.Errorf("packer %d: release: %w", id, rerr)
	}
	return err
}

func (r *room) enter(id int, lease string, onServer int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holding = append(r.holding, id)
	r.peak = max(r.peak, len(r.holding))
	r.serverPeak = max(r.serverPeak, onServer)
	fmt.Fprintf(r.out, "packer %d holds %s, in use: %s\n", id, lease, strings.Trim(fmt.Sprint(r.holding), "[]"))
}

func (r *room) leave(id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holding = slices.DeleteFunc(r.holding, func(h int) bool { return h == id })
}
