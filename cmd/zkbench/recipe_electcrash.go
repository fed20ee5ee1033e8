package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// recipeLatchCrash measures failover after a crash: the leader's process
// stops answering (its connection goes silent, and it cannot dial again),
// so the server must expire its session before anyone else may lead.
const recipeLatchCrash = "latchcrash"

// quietLogger is the crash participants' logger: a crashed client's failed
// reconnects are expected, so their warnings are not shown.
var quietLogger = slog.New(slog.DiscardHandler)

// errCrashed is what a crashed participant's dialer returns.
var errCrashed = errors.New("zkbench: participant crashed")

// crashable is one participant's link to the servers, which the bench can
// make stop answering at once, as if its process had stopped: what it sends
// is dropped, what it receives is discarded, and it cannot dial again.
type crashable struct {
	mu    sync.Mutex
	dead  bool
	conns []net.Conn
}

func (cr *crashable) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	if cr.isDead() {
		return nil, errCrashed
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	cr.mu.Lock()
	cr.conns = append(cr.conns, c)
	cr.mu.Unlock()
	return &silentConn{Conn: c, cr: cr}, nil
}

func (cr *crashable) isDead() bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.dead
}

func (cr *crashable) crash() {
	cr.mu.Lock()
	cr.dead = true
	cr.mu.Unlock()
}

// release closes the connections for good (the end of the run).
func (cr *crashable) release() {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	for _, c := range cr.conns {
		_ = c.Close()
	}
	cr.conns = nil
}

// silentConn drops writes and discards reads once its participant crashed.
type silentConn struct {
	net.Conn
	cr *crashable
}

func (s *silentConn) Write(b []byte) (int, error) {
	if s.cr.isDead() {
		return len(b), nil
	}
	return s.Conn.Write(b)
}

func (s *silentConn) Read(b []byte) (int, error) {
	for {
		n, err := s.Conn.Read(b)
		if err != nil || !s.cr.isDead() {
			return n, err
		}
	}
}

// crashParticipant is one latch on a client of its own, with its link.
type crashParticipant struct {
	link *crashable
	c    *client.Client
	l    *election.Latch
}

// runLatchCrash measures failover after a crash of the leader: P latches,
// each on a client of its own; the leader's link goes silent (crash), and
// the time from the crash to the next participant's term is one failover.
// The crashed participant is then replaced by a fresh one (a new client and
// latch), which joins at the back. The line adds session_ms, the session
// timeout the server negotiated, the bulk of any crash failover.
func runLatchCrash(ctx context.Context, e *env, cfg runConfig, dir string) (electResult, error) {
	if cfg.workers < 2 {
		return electResult{}, fmt.Errorf("%s needs -participants 2 or more, got %d", cfg.recipe, cfg.workers)
	}
	parts := make([]crashParticipant, cfg.workers)
	var dead []crashParticipant // crashed, closed at the end
	var readers sync.WaitGroup
	quit := make(chan struct{})
	starts := make(chan termStart, 4*cfg.workers)
	det := &termDetector{}
	defer func() {
		close(quit)
		closeCrashed := func(p crashParticipant, within time.Duration) {
			if p.l != nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), within)
				_ = p.l.Close(cctx)
				cancel()
			}
			if p.c != nil {
				_ = p.c.Close()
			}
			p.link.release()
		}
		var wg sync.WaitGroup
		for _, p := range dead {
			wg.Go(func() { closeCrashed(p, 0) })
		}
		for _, p := range parts {
			if p.link != nil {
				wg.Go(func() { closeCrashed(p, unlockTimeout) })
			}
		}
		wg.Wait()
		readers.Wait()
	}()
	join := func(i int) error {
		link := &crashable{}
		parts[i].link = link
		c, err := client.New(
			client.WithServers(e.servers...),
			client.WithSessionTimeout(cfg.session),
			client.WithLogger(quietLogger),
			client.WithDialer(link.dial),
		)
		if err != nil {
			return err
		}
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		err = c.Start(sctx)
		cancel()
		if err != nil {
			_ = c.Close()
			return fmt.Errorf("participant %d: %w", i, err)
		}
		parts[i].c = c
		l, err := election.NewLatch(c, dir, election.WithID(strconv.Itoa(i)))
		if err != nil {
			return err
		}
		if err := l.Start(ctx); err != nil {
			return fmt.Errorf("participant %d: start: %w", i, err)
		}
		parts[i].l = l
		terms := l.Terms()
		readers.Go(func() {
			for t := range terms {
				at := time.Now()
				det.begin(t)
				select {
				case starts <- termStart{who: i, at: at, l: l}:
				case <-quit:
				}
			}
		})
		return nil
	}
	for i := range parts {
		if err := join(i); err != nil {
			return electResult{}, err
		}
	}
	// next returns the next term started by another latch than skip's.
	next := func(skip *election.Latch, within time.Duration) (termStart, error) {
		wctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		for {
			select {
			case s := <-starts:
				if s.l != skip {
					return s, nil
				}
			case <-wctx.Done():
				return termStart{}, fmt.Errorf("no next leader: %w", wctx.Err())
			}
		}
	}
	cur, err := next(nil, 30*time.Second)
	if err != nil {
		return electResult{}, err
	}
	res := electResult{recipe: cfg.recipe, participants: cfg.workers, iters: cfg.iters}
	var samples []time.Duration
	var start time.Time
	for n := 0; n < cfg.warmup+cfg.iters; n++ {
		if n == cfg.warmup {
			start = time.Now()
		}
		if n >= cfg.warmup && cfg.budget > 0 && time.Since(start) >= cfg.budget {
			break
		}
		leader := cur.who
		res.session = max(res.session, parts[leader].c.SessionTimeout())
		t0 := time.Now()
		parts[leader].link.crash()
		if cur, err = next(parts[leader].l, 3*cfg.session+10*time.Second); err != nil {
			return electResult{}, err
		}
		if n >= cfg.warmup {
			samples = append(samples, cur.at.Sub(t0))
			res.terms++
		}
		dead = append(dead, parts[leader])
		if err := join(leader); err != nil {
			return electResult{}, err
		}
	}
	res.elapsed = time.Since(start)
	res.setFailovers(samples)
	res.violations = det.count()
	return res, nil
}
