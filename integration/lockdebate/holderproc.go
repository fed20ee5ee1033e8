package lockdebate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// errNotServed is a holder process that never answered: its program does
// not call ServeHolderIfChild first.
var errNotServed = errors.New("the holder process did not start serving (does main or TestMain call lockdebate.ServeHolderIfChild first?)")

// holderProc is the referee's end of the paused holder's process.
type holderProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	enc     *json.Encoder
	replies chan reply // closed when the process's stdout ends
	stderr  *tailBuffer
	done    chan struct{} // closed once the process has exited
	waitErr error
}

// startHolder runs this executable again as the holder of spec's lane and
// waits until it is connected and ready.
func startHolder(ctx context.Context, spec holderSpec) (*holderProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), holderEnv+"=1")
	// A process group of its own, so a terminal's ^C reaches only the
	// referee (which stops the holder); killed if the referee dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	h := &holderProc{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}, replies: make(chan reply, 4), done: make(chan struct{})}
	cmd.Stderr = h.stderr
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the holder process: %w", err)
	}
	h.enc = json.NewEncoder(h.stdin)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(h.replies)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var r reply
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				r = reply{Op: "error", Err: "not a reply: " + sc.Text()}
			}
			h.replies <- r
		}
	}()
	go func() {
		<-readerDone // Wait closes stdout: read all of it first
		h.waitErr = cmd.Wait()
		close(h.done)
	}()
	if err := h.send(spec); err != nil {
		return nil, errors.Join(err, h.close())
	}
	if _, err := h.expect(ctx, "ready", time.Minute); err != nil {
		return nil, errors.Join(err, h.close())
	}
	return h, nil
}

// send writes one message to the holder. Written while the holder is
// stopped, it waits in the pipe: the holder reads it the moment it runs.
func (h *holderProc) send(v any) error {
	if err := h.enc.Encode(v); err != nil {
		return fmt.Errorf("tell the holder: %w%s", err, h.stderrNote())
	}
	return nil
}

// expect waits for the holder's next reply, which must be op.
func (h *holderProc) expect(ctx context.Context, op string, timeout time.Duration) (reply, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r, ok := <-h.replies:
		switch {
		case !ok:
			<-h.done
			if op == "ready" {
				return reply{}, fmt.Errorf("%w: it exited (%v)%s", errNotServed, h.waitErr, h.stderrNote())
			}
			return reply{}, fmt.Errorf("the holder exited (%v)%s", h.waitErr, h.stderrNote())
		case r.Op == "error":
			return r, fmt.Errorf("the holder: %s%s", r.Err, h.stderrNote())
		case r.Op != op:
			return r, fmt.Errorf("the holder answered %q, want %q", r.Op, op)
		}
		return r, nil
	case <-t.C:
		if op == "ready" {
			return reply{}, fmt.Errorf("%w within %v%s", errNotServed, timeout, h.stderrNote())
		}
		return reply{}, fmt.Errorf("no %q from the holder within %v%s", op, timeout, h.stderrNote())
	case <-ctx.Done():
		return reply{}, ctx.Err()
	}
}

// pause stops the holder's whole process (SIGSTOP) and returns once the
// kernel reports it stopped: from then on it runs no instruction, sends no
// heartbeat, until resume.
func (h *holderProc) pause() error {
	pid := h.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("SIGSTOP the holder: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		state, err := processState(pid)
		if err != nil {
			return err
		}
		if state == 'T' || state == 't' {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the holder (pid %d) is in state %q 10s after SIGSTOP", pid, state)
		}
		time.Sleep(time.Millisecond)
	}
}

// resume lets the holder run again (SIGCONT).
func (h *holderProc) resume() error {
	if err := syscall.Kill(h.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		return fmt.Errorf("SIGCONT the holder: %w", err)
	}
	return nil
}

// processState is the state letter of /proc/PID/stat ('T' when stopped).
func processState(pid int) (byte, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// "pid (comm) S ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, b)
	}
	return b[i+2], nil
}

// close ends the holder: it resumes it if stopped, closes its input (it then
// releases and exits) and kills it if it has not exited within 10 s. An
// exit status other than 0 is an error naming what the holder printed.
func (h *holderProc) close() error {
	_ = h.resume()
	_ = h.stdin.Close()
	go func() {
		for range h.replies { // unread replies must not block the reader
		}
	}()
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
		return fmt.Errorf("the holder did not exit within 10s; killed%s", h.stderrNote())
	}
	if h.waitErr != nil {
		return fmt.Errorf("the holder exited: %v%s", h.waitErr, h.stderrNote())
	}
	return nil
}

// stderrNote is the holder's own messages, for an error.
func (h *holderProc) stderrNote() string {
	s := strings.TrimSpace(h.stderr.String())
	if s == "" {
		return ""
	}
	return "; the holder's messages:\n" + s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
