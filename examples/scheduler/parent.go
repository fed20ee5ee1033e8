package main

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"strconv"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// Bounds of the demo's waits, generous for a loaded machine.
const (
	joinWithin   = time.Minute      // all schedulers in the election
	finishWithin = time.Minute      // every night recorded after the last tick
	stopWithin   = 20 * time.Second // a scheduler gone after its stdin closed
	schedSession = 2 * time.Second  // the schedulers' session timeout
)

// demo is the parent: it keeps the clock, starts the schedulers, kills the
// leader once and reads the run record.
type demo struct {
	s       settings
	servers []string
	logger  *slog.Logger
	out     *lockedWriter
	base    string
	keeper  *client.Client
	procs   map[string]*proc
}

// play runs the nights and returns what ZooKeeper holds about them, and
// the id of the scheduler it killed ("" if none).
func (d *demo) play(ctx context.Context) (nights []night, killed string, err error) {
	if d.keeper, err = connect(ctx, d.servers, d.logger, 10*time.Second); err != nil {
		return nil, "", fmt.Errorf("parent: %w", err)
	}
	defer d.keeper.Close()
	if _, err := d.keeper.Create(ctx, clockPath(d.base), []byte("0"), 0, client.WithParents()); err != nil {
		return nil, "", fmt.Errorf("parent: make the clock: %w", err)
	}
	defer d.cleanUp(ctx)
	for _, p := range []string{nightsPath(d.base), startsPath(d.base)} {
		if _, err := d.keeper.Create(ctx, p, nil, 0); err != nil {
			return nil, "", fmt.Errorf("parent: make %s: %w", p, err)
		}
	}
	kill := "no kill"
	if d.s.kill > 0 {
		kill = fmt.Sprintf("the leader killed during night %d's job", d.s.kill)
	}
	d.out.printf("%d schedulers at %s, %d nights of %v, %s\n",
		d.s.schedulers, leaderPath(d.base), d.s.nights, d.s.night, kill)

	defer d.killAll()
	if err := d.startAll(); err != nil {
		return nil, "", err
	}
	if err := d.awaitJoined(ctx); err != nil {
		return nil, "", err
	}
	wctx, stopWatch := context.WithCancel(ctx)
	killedCh := make(chan string, 1)
	go func() { killedCh <- d.killDuring(wctx, d.s.kill) }()
	err = d.tick(ctx)
	if err == nil {
		err = d.awaitRecorded(ctx)
	}
	stopWatch()
	killed = <-killedCh
	if serr := d.stopAll(killed); err == nil {
		err = serr
	}
	if err != nil {
		return nil, killed, err
	}
	nights, err = readRecord(ctx, d.keeper, d.base, d.s.nights)
	return nights, killed, err
}

// awaitJoined waits until every scheduler takes part in the election.
func (d *demo) awaitJoined(ctx context.Context) error {
	deadline := time.Now().Add(joinWithin)
	for {
		ps, err := election.Participants(ctx, d.keeper, leaderPath(d.base))
		if err != nil {
			return fmt.Errorf("parent: list the schedulers: %w", err)
		}
		if len(ps) == d.s.schedulers {
			return nil
		}
		for _, p := range d.procs {
			if p.exited() {
				return fmt.Errorf("parent: scheduler %s exited before joining: %v", p.id, p.err)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("parent: %d of %d schedulers joined within %v", len(ps), d.s.schedulers, joinWithin)
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// killDuring SIGKILLs the scheduler that starts night k's job, as soon as
// its start node appears, and returns its id ("" if none until ctx ends).
func (d *demo) killDuring(ctx context.Context, k int) string {
	if k == 0 {
		return ""
	}
	for {
		names, _, changed, err := d.keeper.ChildrenW(ctx, startsPath(d.base))
		if err != nil {
			if !sleepCtx(ctx, 100*time.Millisecond) {
				return ""
			}
			continue
		}
		for _, name := range names {
			if night, id, ok := parseStart(name); ok && night == k && d.procs[id] != nil {
				p := d.procs[id]
				if err := p.cmd.Process.Kill(); err != nil {
					d.out.printf("parent: could not kill %s: %v\n", id, err)
					return ""
				}
				d.out.printf("parent: SIGKILL %s (pid %d) in the middle of night %d's job\n", id, p.cmd.Process.Pid, k)
				return id
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ""
		}
	}
}

// tick is the demo clock: night k's time comes k nights after the start.
func (d *demo) tick(ctx context.Context) error {
	for k := 1; k <= d.s.nights; k++ {
		if _, err := d.keeper.Set(ctx, clockPath(d.base), []byte(strconv.Itoa(k)), -1); err != nil {
			return fmt.Errorf("parent: advance the clock: %w", err)
		}
		d.out.printf("clock: night %d\n", k)
		if !sleepCtx(ctx, d.s.night) {
			return ctx.Err()
		}
	}
	return nil
}

// awaitRecorded waits until every night has a record.
func (d *demo) awaitRecorded(ctx context.Context) error {
	timeout := time.NewTimer(finishWithin)
	defer timeout.Stop()
	for {
		names, _, changed, err := d.keeper.ChildrenW(ctx, nightsPath(d.base))
		if err != nil {
			return fmt.Errorf("parent: list the records: %w", err)
		}
		if len(names) >= d.s.nights {
			return nil
		}
		select {
		case <-changed:
		case <-timeout.C:
			d.out.printf("parent: %d of %d nights recorded after %v; stopping\n", len(names), d.s.nights, finishWithin)
			return nil // the report counts what is missing
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// cleanUp deletes the demo's persistent nodes; the containers go with them.
func (d *demo) cleanUp(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, dir := range []string{nightsPath(d.base), startsPath(d.base)} {
		names, _, _ := d.keeper.Children(cctx, dir)
		for _, n := range names {
			_ = d.keeper.DeleteIfExists(cctx, path.Join(dir, n))
		}
		_ = d.keeper.DeleteIfExists(cctx, dir)
	}
	_ = d.keeper.DeleteIfExists(cctx, clockPath(d.base))
}
