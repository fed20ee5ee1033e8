package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// stopWithin bounds how long a worker takes to unregister and exit once
// its stdin closed.
const stopWithin = 20 * time.Second

// proc is one worker process.
type proc struct {
	id    string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed once it exited and its output was relayed
	err   error         // its exit, set before done closes
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// startWorker starts worker id: this program again, with the worker role.
// Its output lines are relayed to ours; the address it reports having
// registered is passed to registered.
func (d *demo) startWorker(id string, registered func(id, uri string)) (*proc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("parent: find this program to start the workers: %w", err)
	}
	cmd := exec.Command(exe, roleFlag, "-zk", strings.Join(d.servers, ","), "-id", id,
		"-base", d.base, "-session", workerSession.String())
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("parent: start worker %s: %w", id, err)
	}
	p := &proc{id: id, cmd: cmd, stdin: stdin, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			d.out.printf("%s\n", line)
			if uri, ok := strings.CutPrefix(line, id+" registered at "); ok {
				registered(id, uri)
			}
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stop closes the worker's stdin, which makes it unregister and exit, and
// waits for it.
func (p *proc) stop() error {
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(stopWithin):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("parent: worker %s did not stop within %v", p.id, stopWithin)
	}
	if p.err != nil {
		return fmt.Errorf("parent: worker %s: %w", p.id, p.err)
	}
	return nil
}

// stopAll stops the workers and waits for them.
func stopAll(procs []*proc) error {
	for _, p := range procs {
		_ = p.stdin.Close()
	}
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.stop()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// killAll kills the workers still running (after an error) and waits.
func killAll(procs []*proc) {
	for _, p := range procs {
		if !p.exited() {
			_ = p.cmd.Process.Kill()
		}
		<-p.done
	}
}

// connect opens a session of its own.
func connect(ctx context.Context, servers []string, logger *slog.Logger, timeout time.Duration) (*client.Client, error) {
	c, err := client.New(client.WithServers(servers...), client.WithLogger(logger),
		client.WithSessionTimeout(timeout))
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

// lockedWriter lets the relays and the parent print whole lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}
