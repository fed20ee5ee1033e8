package zktest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// pollInterval is the pause between two serving probes.
const pollInterval = 100 * time.Millisecond

// probeTimeout bounds one probe, so a paused server cannot stall a poll loop.
const probeTimeout = 2 * time.Second

// errNotServing reports a server that answers but is not serving requests
// (for example an ensemble member without a quorum).
var errNotServing = errors.New("not currently serving requests")

// WaitServing polls server i with the four-letter word "srvr" about every
// 100ms until it reports that it serves requests (mode standalone, leader,
// follower or observer), ctx ends, the server process dies, or the cluster is
// closed. With WithTLS, its secure port must also complete a TLS handshake.
func (c *Cluster) WaitServing(ctx context.Context, i int) error {
	ctx = orBackground(ctx)
	if err := c.checkIndex(i); err != nil {
		return err
	}
	addr := c.addrs[i]
	var lastErr error
	var lastExitCheck time.Time
	timer := time.NewTimer(pollInterval)
	defer timer.Stop()
	for {
		if c.isClosed() {
			return ErrClosed
		}
		_, err := srvr(ctx, addr)
		if err == nil && c.cfg.tlsFiles != nil {
			err = c.cfg.tlsFiles.probeTLS(ctx, c.secure[i])
		}
		if err == nil {
			return nil
		}
		lastErr = err
		if c.getState(i) == stateRunning && time.Since(lastExitCheck) >= time.Second {
			lastExitCheck = time.Now()
			var exitErr error
			if !c.whileOpen(func() { exitErr = c.drv.exited(ctx, i) }) {
				return ErrClosed
			}
			if exitErr != nil {
				return fmt.Errorf("zktest: server %d (%s) is not running: %w%s", i, addr, exitErr, c.tail(i))
			}
		}
		timer.Reset(pollInterval)
		select {
		case <-c.done:
			return ErrClosed
		case <-ctx.Done():
			return fmt.Errorf("zktest: server %d (%s) not serving: %w (last probe: %v)%s",
				i, addr, ctx.Err(), lastErr, c.tail(i))
		case <-timer.C:
		}
	}
}

// Mode asks server i once for its mode: "standalone", "leader", "follower" or
// "observer". A server that answers but does not serve gives an error.
func (c *Cluster) Mode(ctx context.Context, i int) (string, error) {
	ctx = orBackground(ctx)
	if err := c.checkIndex(i); err != nil {
		return "", err
	}
	if c.isClosed() {
		return "", ErrClosed
	}
	mode, err := srvr(ctx, c.addrs[i])
	if err != nil {
		return "", fmt.Errorf("zktest: server %d (%s): %w", i, c.addrs[i], err)
	}
	return mode, nil
}

// Leader returns the index of the server that reports itself leader (or
// standalone), asking each server once.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	ctx = orBackground(ctx)
	var errs []error
	for i := range c.addrs {
		mode, err := c.Mode(ctx, i)
		if err != nil {
			if errors.Is(err, ErrClosed) {
				return -1, err
			}
			errs = append(errs, err)
			continue
		}
		if mode == "leader" || mode == "standalone" {
			return i, nil
		}
	}
	return -1, fmt.Errorf("zktest: no server reports itself leader: %w", errors.Join(errs...))
}

// ServerVersion asks server i once with "srvr" for the ZooKeeper version it
// runs, such as "3.9.3" (the release, without the build's suffix).
func (c *Cluster) ServerVersion(ctx context.Context, i int) (string, error) {
	ctx = orBackground(ctx)
	if err := c.checkIndex(i); err != nil {
		return "", err
	}
	if c.isClosed() {
		return "", ErrClosed
	}
	reply, err := srvrReply(ctx, c.addrs[i])
	if err == nil {
		var v string
		if v, err = parseSrvrVersion(reply); err == nil {
			return v, nil
		}
	}
	return "", fmt.Errorf("zktest: server %d (%s): %w", i, c.addrs[i], err)
}

// srvr sends the four-letter word "srvr" to addr and returns the server's mode
// ("standalone", "leader", "follower", "observer") when it serves requests.
func srvr(ctx context.Context, addr string) (string, error) {
	reply, err := srvrReply(ctx, addr)
	if err != nil {
		return "", err
	}
	return parseSrvr(reply)
}

// srvrReply sends the four-letter word "srvr" to addr and returns the reply.
func srvrReply(ctx context.Context, addr string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(dl); err != nil {
			return "", err
		}
	}
	// Unblock the read if ctx is cancelled before its deadline.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := io.WriteString(conn, "srvr"); err != nil {
		return "", err
	}
	reply, err := io.ReadAll(io.LimitReader(conn, 64<<10))
	if err != nil {
		return "", err
	}
	return string(reply), nil
}

// parseSrvr extracts the mode from a srvr reply.
func parseSrvr(reply string) (string, error) {
	if strings.Contains(reply, "not currently serving") {
		return "", errNotServing
	}
	sc := bufio.NewScanner(strings.NewReader(reply))
	for sc.Scan() {
		if mode, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Mode:"); ok {
			if mode = strings.TrimSpace(mode); mode != "" {
				return mode, nil
			}
		}
	}
	if strings.TrimSpace(reply) == "" {
		return "", errors.New("empty srvr reply")
	}
	return "", fmt.Errorf("srvr reply has no Mode line: %q", truncate(reply, 200))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
