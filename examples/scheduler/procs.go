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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// proc is one scheduler process.
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

// startAll starts the scheduler processes: this program again, with the
// scheduler role. Their output lines are relayed to ours.
func (d *demo) startAll() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("parent: find this program to start the schedulers: %w", err)
	}
	d.procs = make(map[string]*proc)
	for i := range d.s.schedulers {
		id := "s" + strconv.Itoa(i+1)
		cmd := exec.Command(exe, roleFlag, "-zk", strings.Join(d.servers, ","), "-id", id,
			"-base", d.base, "-job", d.s.job.String(), "-session", schedSession.String())
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("parent: start scheduler %s: %w", id, err)
		}
		p := &proc{id: id, cmd: cmd, stdin: stdin, done: make(chan struct{})}
		d.procs[id] = p
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				d.out.printf("%s\n", sc.Text())
			}
			p.err = cmd.Wait()
			close(p.done)
		}()
	}
	return nil
}

// stopAll closes the schedulers' stdin, which stops them, and waits. Only
// the killed one may have exited with an error.
func (d *demo) stopAll(killed string) error {
	for _, p := range d.procs {
		_ = p.stdin.Close()
	}
	var errs []error
	for id, p := range d.procs {
		select {
		case <-p.done:
		case <-time.After(stopWithin):
			_ = p.cmd.Process.Kill()
			<-p.done
			errs = append(errs, fmt.Errorf("parent: scheduler %s did not stop within %v", id, stopWithin))
			continue
		}
		if p.err != nil && id != killed {
			errs = append(errs, fmt.Errorf("parent: scheduler %s: %w", id, p.err))
		}
	}
	return errors.Join(errs...)
}

// killAll kills the schedulers still running (after an error) and waits.
func (d *demo) killAll() {
	for _, p := range d.procs {
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

func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-time.After(d): // collected once it fires or is unreferenced (Go 1.23)
		return true
	case <-ctx.Done():
		return false
	}
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
