// Command rwlock is a seed shop where many customers look at the shelf at
// once but only one at a time may take from it.
//
// Ten shoppers arrive together, each its own ZooKeeper session (as if each
// were a separate process) with its own handle on one distributed
// read/write lock. Most only look: they take the read lock, read the stock
// from a znode and linger a moment, so several look at the same time. A few
// buy: they take the write lock, read the stock and write it back one packet
// lower. The command counts, in process, who is inside the lock, and shows
// that lookers overlap while no purchase overlaps anything:
//
//	reader 4 reads stock=7 (3 readers inside)
//	buyer 1 buys a packet: stock 7 -> 6
//	...
//	stock: started 10, sold 10, left 0
//	reads 28 (max 7 at once), writes 12, overlapping writes 0
//
// Usage:
//
//	go run ./examples/rwlock [-zk host:port,...] [-shoppers N] [-buyers N] [-visits N] [-stock N]
//
// Without -zk it starts a throwaway ZooKeeper server with zktest (the
// ZK_BACKEND and ZK_IMAGE environment variables choose how) and stops it at
// the end. Each run works under a fresh base path, so reruns against a real
// ensemble never collide, and removes its nodes when done. The command exits
// non-zero on any error, when a purchase overlapped anyone, or when the
// stock does not add up.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// examplesRoot is the parent of every run's base path.
const examplesRoot = "/zkrecipes-examples"

var (
	// errOverlap reports that a writer shared the lock with someone.
	errOverlap = errors.New("a purchase overlapped another shopper")
	// errStock reports that the stock does not add up.
	errStock = errors.New("the stock does not add up")
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rwlock example:", err)
		os.Exit(1)
	}
}

// settings are the command's flags.
type settings struct {
	zk       string   // -zk as given; see zktest.ServersOrThrowaway
	servers  []string // what -zk names, or the throwaway server
	shoppers int
	buyers   int
	visits   int
	stock    int
}

func parseFlags(args []string) (settings, error) {
	fs := flag.NewFlagSet("rwlock", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	zkFlag := fs.String("zk", "", "ZooKeeper ensemble `host:port,...` (default: start a throwaway server)")
	shoppers := fs.Int("shoppers", 10, "shoppers arriving at once, each with its own session")
	buyers := fs.Int("buyers", 3, "how many of the shoppers buy; the others only look")
	visits := fs.Int("visits", 4, "visits to the shelf per shopper")
	stock := fs.Int("stock", 10, "seed packets on the shelf at the start")
	if err := fs.Parse(args); err != nil {
		return settings{}, err
	}
	if fs.NArg() > 0 {
		return settings{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	s := settings{zk: *zkFlag, shoppers: *shoppers, buyers: *buyers, visits: *visits, stock: *stock}
	switch {
	case s.shoppers < 1 || s.shoppers > 1000:
		return s, fmt.Errorf("-shoppers must be from 1 to 1000 (one session each), got %d", s.shoppers)
	case s.buyers < 0 || s.buyers > s.shoppers:
		return s, fmt.Errorf("-buyers must be from 0 to -shoppers (%d), got %d", s.shoppers, s.buyers)
	case s.visits < 1:
		return s, fmt.Errorf("-visits must be at least 1, got %d", s.visits)
	case s.stock < 0 || s.stock > 1<<30:
		return s, fmt.Errorf("-stock must be from 0 to %d, got %d", 1<<30, s.stock)
	}
	return s, nil
}

// shop is what the shoppers share in this process: the output and the
// counters that show who is inside the lock.
type shop struct {
	out   *lockedWriter
	stock string // znode holding the stock (4-byte big-endian int)
	lock  string // the lock's directory

	readers, writers atomic.Int64 // inside right now
	maxReaders       atomic.Int64
	reads, writes    atomic.Int64
	sold             atomic.Int64
	overlaps         atomic.Int64 // writes that shared the lock with anyone
}

// run is the whole program: parse args, get a ZooKeeper, stock the shelf,
// let the shoppers in, and report. Its last line on stdout is
// "reads N (max M at once), writes K, overlapping writes V".
func run(ctx context.Context, args []string, stdout io.Writer) error {
	s, err := parseFlags(args)
	if err != nil {
		return err
	}
	// Connection state changes of a dozen sessions are noise here: only
	// warnings and errors go to stderr.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	servers, cluster, err := zktest.ServersOrThrowaway(ctx, s.zk, zktest.WithLogger(logger))
	if err != nil {
		return err
	}
	defer cluster.Close()
	s.servers = servers

	base := fmt.Sprintf("%s/seed-shop-%d-%d", examplesRoot, os.Getpid(), time.Now().UnixNano())
	sh := &shop{out: &lockedWriter{w: stdout}, stock: base + "/stock", lock: base + "/lock"}
	fmt.Fprintf(sh.out, "seed shop at %s: %d packets, %d shoppers (%d buy)\n", base, s.stock, s.shoppers, s.buyers)

	owner, err := connect(ctx, s.servers, logger)
	if err != nil {
		return err
	}
	defer owner.Close()
	if _, err := owner.Create(ctx, sh.stock, encode(s.stock), 0, client.WithParents()); err != nil {
		return fmt.Errorf("stock the shelf: %w", err)
	}
	defer func() {
		// The stock node goes; the server then reaps the empty containers.
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = owner.DeleteIfExists(cctx, sh.stock)
	}()

	if err := sh.open(ctx, s, logger); err != nil {
		return err
	}

	data, _, err := owner.Get(ctx, sh.stock)
	if err != nil {
		return fmt.Errorf("count the shelf: %w", err)
	}
	left, err := decode(data)
	if err != nil {
		return err
	}
	fmt.Fprintf(sh.out, "stock: started %d, sold %d, left %d\n", s.stock, sh.sold.Load(), left)
	fmt.Fprintf(sh.out, "reads %d (max %d at once), writes %d, overlapping writes %d\n",
		sh.reads.Load(), sh.maxReaders.Load(), sh.writes.Load(), sh.overlaps.Load())
	switch {
	case sh.overlaps.Load() != 0:
		return fmt.Errorf("%w: %d times", errOverlap, sh.overlaps.Load())
	case int64(s.stock)-sh.sold.Load() != int64(left):
		return fmt.Errorf("%w: started %d, sold %d, left %d", errStock, s.stock, sh.sold.Load(), left)
	}
	return nil
}

// open lets the shoppers in together and waits until all have left. The
// first error sends everyone home.
func (sh *shop) open(ctx context.Context, s settings, logger *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg, ready sync.WaitGroup
		errOnce   sync.Once
		firstErr  error
		doors     = make(chan struct{}) // closed once every shopper is connected
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		cancel()
	}
	ready.Add(s.shoppers)
	for i := range s.shoppers {
		// Exactly s.buyers of the shoppers buy, spread among the lookers.
		buyer := i*s.buyers%s.shoppers < s.buyers
		wg.Go(func() {
			c, rw, err := sh.enter(ctx, s.servers, logger)
			ready.Done()
			if err != nil {
				fail(fmt.Errorf("shopper %d: %w", i, err))
				return
			}
			defer c.Close()
			select {
			case <-doors:
			case <-ctx.Done():
				return
			}
			rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))
			for range s.visits {
				var err error
				if buyer {
					err = sh.buy(ctx, i, c, rw)
				} else {
					err = sh.look(ctx, i, c, rw)
				}
				if err != nil {
					fail(fmt.Errorf("shopper %d: %w", i, err))
					return
				}
				// Browse elsewhere a moment before the next visit.
				select {
				case <-time.After(time.Duration(rnd.IntN(20)) * time.Millisecond):
				case <-ctx.Done():
					return
				}
			}
		})
	}
	ready.Wait()
	close(doors)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// enter connects one shopper: a session and a lock handle of its own.
func (sh *shop) enter(ctx context.Context, servers []string, logger *slog.Logger) (*client.Client, *rwlock.RWMutex, error) {
	c, err := connect(ctx, servers, logger)
	if err != nil {
		return nil, nil, err
	}
	rw, err := rwlock.New(c, sh.lock)
	if err != nil {
		_ = c.Close()
		return nil, nil, err
	}
	return c, rw, nil
}

// look reads the stock under the read lock and lingers, so that other
// lookers can be inside at the same time.
func (sh *shop) look(ctx context.Context, i int, c *client.Client, rw *rwlock.RWMutex) (err error) {
	if err := rw.RLock(ctx); err != nil {
		return fmt.Errorf("read lock: %w", err)
	}
	defer func() {
		if uerr := rw.RUnlock(context.WithoutCancel(ctx)); err == nil && uerr != nil {
			err = fmt.Errorf("read unlock: %w", uerr)
		}
	}()
	inside := sh.readers.Add(1)
	defer sh.readers.Add(-1)
	for {
		m := sh.maxReaders.Load()
		if inside <= m || sh.maxReaders.CompareAndSwap(m, inside) {
			break
		}
	}
	data, _, err := c.Get(ctx, sh.stock)
	if err != nil {
		return fmt.Errorf("read the stock: %w", err)
	}
	n, err := decode(data)
	if err != nil {
		return err
	}
	sh.reads.Add(1)
	noun := "readers"
	if inside == 1 {
		noun = "reader"
	}
	fmt.Fprintf(sh.out, "reader %d reads stock=%d (%d %s inside)\n", i, n, inside, noun)
	time.Sleep(30 * time.Millisecond) // looking at the packets
	return nil
}

// buy takes one packet under the write lock, if any is left. Inside, it
// checks that nobody else is: no reader and no other writer.
func (sh *shop) buy(ctx context.Context, i int, c *client.Client, rw *rwlock.RWMutex) (err error) {
	if err := rw.Lock(ctx); err != nil {
		return fmt.Errorf("write lock: %w", err)
	}
	defer func() {
		if uerr := rw.Unlock(context.WithoutCancel(ctx)); err == nil && uerr != nil {
			err = fmt.Errorf("write unlock: %w", uerr)
		}
	}()
	w := sh.writers.Add(1)
	defer sh.writers.Add(-1)
	if w != 1 || sh.readers.Load() != 0 {
		sh.overlaps.Add(1)
		fmt.Fprintf(sh.out, "buyer %d is NOT alone: %d writers, %d readers inside\n", i, w, sh.readers.Load())
	}
	sh.writes.Add(1)
	data, st, err := c.Get(ctx, sh.stock)
	if err != nil {
		return fmt.Errorf("read the stock: %w", err)
	}
	n, err := decode(data)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintf(sh.out, "buyer %d finds the shelf empty\n", i)
		return nil
	}
	time.Sleep(5 * time.Millisecond) // paying
	// The version check cannot fail while the write lock excludes everyone;
	// if it did, two buyers would have sold the same packet.
	if _, err := c.Set(ctx, sh.stock, encode(n-1), st.Version); err != nil {
		if errors.Is(err, zk.ErrBadVersion) {
			sh.overlaps.Add(1)
		}
		return fmt.Errorf("take a packet: %w", err)
	}
	sh.sold.Add(1)
	fmt.Fprintf(sh.out, "buyer %d buys a packet: stock %d -> %d\n", i, n, n-1)
	return nil
}

// connect starts a client with a session of its own.
func connect(ctx context.Context, servers []string, logger *slog.Logger) (*client.Client, error) {
	c, err := client.New(client.WithServers(servers...), client.WithLogger(logger),
		client.WithSessionTimeout(10*time.Second))
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.Start(sctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect to %v: %w", servers, err)
	}
	return c, nil
}

// encode and decode the stock: a 4-byte big-endian int, as Curator's SharedCount.
func encode(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func decode(data []byte) (int, error) {
	if len(data) != 4 {
		return 0, fmt.Errorf("stock node holds %d bytes, want 4", len(data))
	}
	return int(int32(binary.BigEndian.Uint32(data))), nil
}

// lockedWriter serialises the shoppers' lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
