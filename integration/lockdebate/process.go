package lockdebate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotInstalled reports that a server's program is missing: the project's
// scripts/install-deps.sh installs Debian's redis-server and mariadb-server.
var ErrNotInstalled = errors.New("not installed (run scripts/install-deps.sh as root)")

// Ports are drawn from [portLow, portHigh), below Linux's ephemeral range
// (32768-60999), so that no outgoing connection takes a server's port between
// the draw and the server's bind.
const (
	portLow   = 20000
	portHigh  = 32000
	portTries = 200
)

// freePort returns a TCP port that was free on 127.0.0.1 a moment ago. Two
// servers may still draw the same port: the starters retry on a failed bind.
func freePort() (int, error) {
	for range portTries {
		port := portLow + rand.IntN(portHigh-portLow)
		ln, err := net.Listen("tcp", loopback(port))
		if err != nil {
			continue
		}
		_ = ln.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no free port in [%d, %d) after %d tries", portLow, portHigh, portTries)
}

func loopback(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

// program finds a server's executable in PATH or in the directories Debian
// installs it to (mariadbd lives in /usr/sbin, which a user's PATH may lack).
func program(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotInstalled)
}

// proc is one throwaway server process: in a process group of its own, its
// output in a log file, and killed if this process dies without stopping it.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has exited

	mu      sync.Mutex
	waitErr error
}

// startProc runs bin with args, its output appended to logPath.
func startProc(name, logPath, bin string, args ...string) (*proc, error) {
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	// Not exec.CommandContext: the server outlives the ctx of its start.
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		_ = out.Close()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// exited returns a non-nil error naming how the process ended, or nil while
// it runs.
func (p *proc) exited() error {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return fmt.Errorf("%s exited (%v); the end of its log:\n%s", p.name, p.waitErr, p.logTail())
	default:
		return nil
	}
}

// wait waits until the process exits and returns how (nil: status 0). If
// ctx ends first, it kills the process.
func (p *proc) wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = p.kill()
		return ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// signal sends sig to the process group; a group that is gone is no error.
func (p *proc) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s: signal %v: %w", p.name, sig, err)
	}
	return nil
}

// kill ends the process at once (SIGKILL, which ends a stopped one too) and
// waits until it has exited.
func (p *proc) kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s did not exit after SIGKILL", p.name)
	}
}

// logTail returns the last lines of the process's log, for error messages.
func (p *proc) logTail() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}

// addrInUse reports whether a server's log says its port was taken.
func (p *proc) addrInUse() bool {
	b, _ := os.ReadFile(p.logPath)
	s := strings.ToLower(string(b))
	return strings.Contains(s, "address already in use") || strings.Contains(s, "errno: 98")
}
