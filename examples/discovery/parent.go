package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// Bounds of the demo's waits, generous for a loaded machine.
const (
	seeWithin     = time.Minute     // the client sees a change the parent made
	workerSession = 2 * time.Second // the workers' session timeout
	callWithin    = 5 * time.Second // one call to a worker
)

// demo is the parent: it starts the workers, kills and restarts some, and
// follows the service as a client.
type demo struct {
	s       settings
	servers []string
	logger  *slog.Logger
	out     *lockedWriter
	base    string
	procs   []*proc // every worker process started, killed ones included
}

// result is what the last line reports.
type result struct {
	killed, gone, back, final, answered int
}

// play runs the demo and returns its tally.
func (d *demo) play(ctx context.Context) (r result, err error) {
	c, err := connect(ctx, d.servers, d.logger, 10*time.Second)
	if err != nil {
		return r, fmt.Errorf("parent: %w", err)
	}
	defer c.Close()
	disc, err := discovery.New(c, d.base)
	if err != nil {
		return r, err
	}
	defer disc.Close(context.WithoutCancel(ctx))
	cache, err := disc.NewCache(serviceName)
	if err != nil {
		return r, err
	}
	v := newView()
	events, unsubscribe := cache.Events() // before Start: the load's events too
	followed := make(chan struct{})
	go func() { v.follow(events, d.out); close(followed) }()
	stopFollowing := func() { unsubscribe(); <-followed }
	defer stopFollowing()
	if err := cache.Start(ctx); err != nil {
		return r, fmt.Errorf("parent: start the client's cache: %w", err)
	}
	kill := "none will be killed"
	if d.s.kill > 0 {
		kill = fmt.Sprintf("%d will be SIGKILLed and started again", d.s.kill)
	}
	d.out.printf("%d workers register as service %q under %s (session timeout %v); %s\n",
		d.s.workers, serviceName, d.base, workerSession, kill)

	defer func() { killAll(d.procs) }()
	ids := make([]string, d.s.workers)
	live := map[string]*proc{}
	for i := range ids {
		ids[i] = "w" + strconv.Itoa(i+1)
		p, err := d.startWorker(ids[i], v.report)
		if err != nil {
			return r, err
		}
		d.procs, live[ids[i]] = append(d.procs, p), p
	}
	allThere := func() bool { return v.matching(ids) == len(ids) }
	if err := v.wait(ctx, seeWithin, "every worker registered", allThere); err != nil {
		return r, err
	}

	victims := pick(ids, d.s.kill)
	if len(victims) > 0 {
		v.markKilled(victims)
		var killed []string
		for _, id := range victims {
			p := live[id]
			if err := p.cmd.Process.Kill(); err != nil {
				return r, fmt.Errorf("parent: kill %s: %w", id, err)
			}
			<-p.done
			delete(live, id)
			killed = append(killed, fmt.Sprintf("%s (pid %d)", id, p.cmd.Process.Pid))
		}
		r.killed = len(victims)
		d.out.printf("parent: SIGKILL %s: their instances go when their sessions expire\n", strings.Join(killed, ", "))
		allGone := func() bool { return v.absent(victims) == len(victims) }
		if err := v.wait(ctx, seeWithin, "the killed workers gone", allGone); err != nil {
			return r, err
		}
		d.out.printf("parent: start %s again\n", strings.Join(victims, ", "))
		for _, id := range victims {
			p, err := d.startWorker(id, v.report)
			if err != nil {
				return r, err
			}
			d.procs, live[id] = append(d.procs, p), p
		}
		if err := v.wait(ctx, seeWithin, "every worker back", allThere); err != nil {
			return r, err
		}
	}

	if r.answered, err = d.callEach(ctx, disc, len(ids)); err != nil {
		return r, err
	}
	r.final = v.matching(ids)
	var others []string
	r.gone, r.back, others = v.tally()
	if len(others) > 0 {
		d.out.printf("note: instances of workers that were not killed were seen gone too (a session expired under load?): %s\n",
			strings.Join(others, " "))
	}
	stopFollowing()
	d.out.printf("parent: stop the workers (each unregisters)\n")
	procs := make([]*proc, 0, len(live))
	for _, id := range ids {
		procs = append(procs, live[id])
	}
	return r, stopAll(procs)
}

// pick chooses k of ids, spread over the list.
func pick(ids []string, k int) []string {
	var out []string
	for i := 1; i <= k; i++ {
		out = append(out, ids[i*len(ids)/k-1])
	}
	return out
}

// callEach makes n calls through a round-robin Provider of the service,
// each a TCP connection that reads the worker's id, and returns how many
// distinct workers answered.
func (d *demo) callEach(ctx context.Context, disc *discovery.Discovery, n int) (int, error) {
	p, err := disc.NewProvider(serviceName, discovery.WithStrategy(discovery.RoundRobin()))
	if err != nil {
		return 0, err
	}
	defer p.Close(ctx)
	if err := p.Start(ctx); err != nil {
		return 0, fmt.Errorf("parent: start the provider: %w", err)
	}
	answered := map[string]bool{}
	var order []string
	for range n {
		inst, err := p.GetInstance()
		if err != nil {
			return 0, fmt.Errorf("parent: provider: %w", err)
		}
		who, err := call(ctx, inst)
		if err != nil {
			return 0, fmt.Errorf("parent: call %s: %w", inst.BuildURI(nil), err)
		}
		answered[who] = true
		order = append(order, who)
	}
	d.out.printf("provider (round robin): %d calls answered by %s\n", n, strings.Join(order, " "))
	return len(answered), nil
}

// call connects to the instance and reads the id its worker answers with.
func call(ctx context.Context, inst discovery.Instance) (string, error) {
	dialer := net.Dialer{Timeout: callWithin}
	conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort(inst.Address, strconv.Itoa(inst.Port)))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(callWithin))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(line), nil
}
