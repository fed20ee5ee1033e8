package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// roleFlag, as the first argument, makes the command a scheduler process
// (what the parent starts three of) instead of the demo.
const roleFlag = "-role=scheduler"

// isScheduler reports whether args (without the program name) ask for the
// scheduler role.
func isScheduler(args []string) bool { return len(args) > 0 && args[0] == roleFlag }

// schedulerMain is a scheduler process's main: it runs until its standard
// input closes (the parent stops it so) or it is signalled, and returns the
// process's exit code.
func schedulerMain(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the parent closes our stdin to stop us, or dies
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := schedule(ctx, args); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		return 1
	}
	return 0
}

// sched is one scheduler process.
type sched struct {
	c    *client.Client
	id   string
	base string
	job  time.Duration
}

func schedule(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	zkFlag := fs.String("zk", "", "ZooKeeper servers `host:port,...`")
	id := fs.String("id", "", "this scheduler's id")
	base := fs.String("base", "", "the demo's base path")
	job := fs.Duration("job", 250*time.Millisecond, "how long a night's job takes")
	session := fs.Duration("session", 2*time.Second, "session timeout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *zkFlag == "" || *id == "" || *base == "" {
		return errors.New("-zk, -id and -base are required")
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := connect(ctx, strings.Split(*zkFlag, ","), logger, *session)
	if err != nil {
		return fmt.Errorf("%s: connect: %w", *id, err)
	}
	defer c.Close()
	s := &sched{c: c, id: *id, base: *base, job: *job}
	return election.Run(ctx, c, leaderPath(s.base), s.lead, election.WithID(s.id))
}

// lead is one term: until the term ends, run every night whose time has
// come (the clock node says which) and that nobody has recorded yet, in
// order, including nights a previous leader missed.
func (s *sched) lead(ctx context.Context, t *election.Term) error {
	s.say("leads (term token 0x%x)", t.Token())
	for {
		data, _, clockChanged, err := s.c.GetW(ctx, clockPath(s.base))
		if err != nil {
			return err
		}
		due, err := strconv.Atoi(string(data))
		if err != nil {
			return fmt.Errorf("clock node holds %q: %w", data, err)
		}
		done, _, err := s.c.Children(ctx, nightsPath(s.base))
		if err != nil {
			return err
		}
		recorded := make(map[string]bool, len(done))
		for _, n := range done {
			recorded[n] = true
		}
		for k := 1; k <= due; k++ {
			if !recorded[nightName(k)] {
				if err := s.runNight(ctx, t, k); err != nil {
					return err
				}
			}
		}
		select {
		case <-clockChanged:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// runNight runs night k's job and records it, guarded by the term: the
// record is created in a transaction with a check that the term's node
// still exists. A start node is made first, marked finished once the job
// has run to its end and recorded in the record's transaction, so the demo
// can count starts, finished jobs and records whatever happens to this
// process.
func (s *sched) runNight(ctx context.Context, t *election.Term, k int) error {
	token := fmt.Sprintf("0x%x", t.Token())
	start := startPath(s.base, k, s.id)
	if _, err := s.c.Create(ctx, start, []byte("started token="+token), 0); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("night %d: record the start: %w", k, err)
	}
	s.say("night %d: job started", k)
	select { // the job itself, unless leadership may be gone meanwhile
	case <-time.After(s.job):
	case <-ctx.Done():
		s.say("night %d: job abandoned: leadership may be gone (%v)", k, context.Cause(ctx))
		return ctx.Err()
	}
	if _, err := s.c.Set(ctx, start, []byte("finished token="+token), -1); err != nil {
		return fmt.Errorf("night %d: mark the job finished: %w", k, err)
	}
	// The record commits only while the term's node exists: that node is
	// first in the queue as long as it exists, so nobody else leads. Under
	// a context of its own, so that the outcome is known even if the term
	// ends meanwhile.
	rec := fmt.Sprintf("runner=%s token=%s", s.id, token)
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	res, err := s.c.Multi(mctx,
		&zk.CheckVersionRequest{Path: t.Node(), Version: -1},
		&zk.CreateRequest{Path: nightPath(s.base, k), Data: []byte(rec)},
		&zk.SetDataRequest{Path: start, Data: []byte("recorded token=" + token), Version: -1},
	)
	switch {
	case err == nil:
		s.say("night %d: recorded (%s)", k, rec)
		return nil
	case opFailed(res, 0, err, zk.ErrNoNode):
		s.say("night %d: record refused: the term's node is gone", k)
		return fmt.Errorf("night %d: %w", k, zkrecipes.ErrLost)
	case opFailed(res, 1, err, zk.ErrNodeExists):
		got, _, gerr := s.c.Get(mctx, nightPath(s.base, k))
		if gerr == nil && string(got) == rec { // our own commit, replayed after a lost reply
			s.say("night %d: recorded (%s)", k, rec)
			return nil
		}
		s.say("night %d: already recorded (%s)", k, got)
		return nil
	default:
		return fmt.Errorf("night %d: record: %w", k, err)
	}
}

// opFailed reports whether op i of a failed transaction failed with want.
func opFailed(res []zk.MultiResponse, i int, err, want error) bool {
	if i < len(res) {
		return errors.Is(res[i].Error, want)
	}
	return errors.Is(err, want)
}

func (s *sched) say(format string, args ...any) {
	fmt.Printf("%s: %s\n", s.id, fmt.Sprintf(format, args...))
}
