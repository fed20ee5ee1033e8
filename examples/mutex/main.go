// Command mutex is a small shop that must not sell what it does not have.
//
// The shop has two hair dryers in stock and ten buyers arrive at once. Each
// buyer is its own ZooKeeper session (as if each were a separate process)
// with its own handle on one distributed lock. Holding the lock, a buyer
// reads the stock from a znode, takes one item if any is left and writes the
// stock back. Without the lock, two buyers could both read "1" and both take
// the last item; with it, the shop ends with exactly what it started with
// minus what it sold:
//
//	buyer 3 holds the lock (token 0x1a2b): stock 2 -> 1, bought
//	...
//	sold 2 of 2, oversold 0
//
// Usage:
//
//	go run ./examples/mutex [-zk host:port,...] [-stock N] [-buyers N]
//
// Without -zk it starts a throwaway ZooKeeper server with zktest (the
// ZK_BACKEND and ZK_IMAGE environment variables choose how) and stops it at
// the end. Every run works under a fresh base path, so reruns against a real
// ensemble never collide. The command exits non-zero on any error, and when
// the shop oversold.
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

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// examplesRoot is the parent of every run's base path.
const examplesRoot = "/zkrecipes-examples"

// errOversold reports that buyers took more items than the shop had.
var errOversold = errors.New("the shop oversold")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutex example:", err)
		os.Exit(1)
	}
}

// settings are the command's flags.
type settings struct {
	zk     string // -zk as given; see zktest.ServersOrThrowaway
	stock  int
	buyers int
}

func parseFlags(args []string) (settings, error) {
	fs := flag.NewFlagSet("mutex", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	zkFlag := fs.String("zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	stock := fs.Int("stock", 2, "hair dryers in stock at the start")
	buyers := fs.Int("buyers", 10, "buyers arriving at once, each with its own session")
	if err := fs.Parse(args); err != nil {
		return settings{}, err
	}
	if fs.NArg() > 0 {
		return settings{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	s := settings{zk: *zkFlag, stock: *stock, buyers: *buyers}
	switch {
	case s.stock < 0:
		return s, fmt.Errorf("-stock must be 0 or more, got %d", s.stock)
	case s.buyers < 1:
		return s, fmt.Errorf("-buyers must be at least 1, got %d", s.buyers)
	case s.buyers > 1000:
		return s, fmt.Errorf("-buyers must be at most 1000 (one session each), got %d", s.buyers)
	}
	return s, nil
}

// run is the whole program: parse args, get a ZooKeeper, open the shop, let
// the buyers in, and report. Its last line on stdout is
// "sold N of M, oversold K".
func run(ctx context.Context, args []string, stdout io.Writer) (err error) {
	s, err := parseFlags(args)
	if err != nil {
		return err
	}
	// Connection state changes of eleven sessions are noise here: only
	// warnings and errors go to stderr.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	out := &lockedWriter{w: stdout}

	servers, cluster, err := zktest.ServersOrThrowaway(ctx, s.zk, zktest.WithLogger(logger))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := cluster.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("stop the throwaway ZooKeeper: %w", cerr)
		}
	}()
	if cluster != nil {
		out.printf("throwaway ZooKeeper (%s) at %s\n", cluster, cluster.ConnectString())
	}

	sh := &shop{
		servers: servers,
		logger:  logger,
		base:    fmt.Sprintf("%s/shop-%016x", examplesRoot, rand.Uint64()),
		out:     out,
	}
	sold, err := sh.open(ctx, s.stock, s.buyers)
	if err != nil {
		return err
	}
	oversold := max(0, sold-s.stock)
	out.printf("sold %d of %d, oversold %d\n", sold, s.stock, oversold)
	if oversold != 0 {
		return fmt.Errorf("%w: %d items beyond the stock of %d", errOversold, oversold, s.stock)
	}
	return nil
}

// shop is one run: a stock znode and a lock, both under base.
type shop struct {
	servers []string
	logger  *slog.Logger
	base    string
	out     *lockedWriter
}

func (sh *shop) stockPath() string { return sh.base + "/hairdryers" }
func (sh *shop) lockPath() string  { return sh.base + "/lock" }

// open puts the stock on the shelf, lets the buyers in at once, and returns
// how many items they say they bought. It also checks that the stock left in
// the znode agrees with what they recorded.
func (sh *shop) open(ctx context.Context, stock, buyers int) (sold int, err error) {
	keeper, err := sh.connect(ctx)
	if err != nil {
		return 0, fmt.Errorf("shopkeeper: %w", err)
	}
	defer keeper.Close()
	if _, err := keeper.Create(ctx, sh.stockPath(), []byte(strconv.Itoa(stock)), 0, client.WithParents()); err != nil {
		return 0, fmt.Errorf("shopkeeper: put the stock on the shelf: %w", err)
	}
	defer func() {
		// The base path and the lock directory are container nodes that the
		// server removes once empty; only the stock node must be deleted.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if derr := keeper.DeleteIfExists(cctx, sh.stockPath()); derr != nil && err == nil {
			err = fmt.Errorf("shopkeeper: clean up: %w", derr)
		}
	}()
	sh.out.printf("%d hair dryers in stock at %s, %d buyers arriving\n", stock, sh.stockPath(), buyers)

	bought := make([]bool, buyers)
	errs := make([]error, buyers)
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Go(func() { bought[i], errs[i] = sh.buyer(ctx, i+1) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	for _, b := range bought {
		if b {
			sold++
		}
	}

	data, _, err := keeper.Get(ctx, sh.stockPath())
	if err != nil {
		return 0, fmt.Errorf("shopkeeper: count the stock: %w", err)
	}
	left, err := strconv.Atoi(string(data))
	if err != nil {
		return 0, fmt.Errorf("shopkeeper: stock node holds %q: %w", data, err)
	}
	if left != stock-sold {
		return sold, fmt.Errorf("shopkeeper: %d left on the shelf, but %d of %d were sold", left, sold, stock)
	}
	return sold, nil
}

// buyer is one customer with a session and a lock handle of its own. It
// reports whether it bought an item.
func (sh *shop) buyer(ctx context.Context, id int) (bool, error) {
	c, err := sh.connect(ctx)
	if err != nil {
		return false, fmt.Errorf("buyer %d: %w", id, err)
	}
	defer c.Close()
	m, err := mutex.New(c, sh.lockPath())
	if err != nil {
		return false, fmt.Errorf("buyer %d: %w", id, err)
	}
	if err := m.Lock(ctx); err != nil {
		return false, fmt.Errorf("buyer %d: lock: %w", id, err)
	}
	bought, err := sh.buyUnderLock(ctx, id, c, m)
	if uerr := m.Unlock(ctx); uerr != nil && err == nil {
		err = fmt.Errorf("buyer %d: unlock: %w", id, uerr)
	}
	return bought, err
}

// buyUnderLock is the critical section: read, decide, write back.
func (sh *shop) buyUnderLock(ctx context.Context, id int, c *client.Client, m *mutex.Mutex) (bool, error) {
	// Do the work under a context that ends if the lock may have been lost,
	// so nothing is written by a buyer that no longer holds it.
	work, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := m.Lost()
	go func() {
		select {
		case <-lost:
			cancel()
		case <-work.Done():
		}
	}()

	data, st, err := c.Get(work, sh.stockPath())
	if err != nil {
		return false, fmt.Errorf("buyer %d: read the stock: %w", id, err)
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return false, fmt.Errorf("buyer %d: stock node holds %q: %w", id, data, err)
	}
	token, err := m.Token(work)
	if err != nil {
		return false, fmt.Errorf("buyer %d: fencing token: %w", id, err)
	}
	head := fmt.Sprintf("buyer %d holds the lock (token 0x%x): ", id, token)
	if n <= 0 {
		sh.out.printf("%sstock %d, sold out\n", head, n)
		return false, nil
	}
	// The version check is a second line of defence: if another writer got
	// in between after all, this write fails instead of overselling.
	if _, err := c.Set(work, sh.stockPath(), []byte(strconv.Itoa(n-1)), st.Version); err != nil {
		if errors.Is(err, zk.ErrBadVersion) {
			return false, fmt.Errorf("buyer %d: the stock changed while it held the lock: %w", id, err)
		}
		return false, fmt.Errorf("buyer %d: write the stock: %w", id, err)
	}
	sh.out.printf("%sstock %d -> %d, bought\n", head, n, n-1)
	return true, nil
}

// connect opens a session of its own.
func (sh *shop) connect(ctx context.Context) (*client.Client, error) {
	c, err := client.New(
		client.WithServers(sh.servers...),
		client.WithSessionTimeout(10*time.Second),
		client.WithLogger(sh.logger),
	)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Start(sctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// lockedWriter lets the buyers print whole lines concurrently.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}
