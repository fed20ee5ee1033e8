package zkharness

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

// srvr sends the four-letter word "srvr" to addr and returns the server's mode
// ("standalone", "leader", "follower", "observer") when it serves requests.
func srvr(ctx context.Context, addr string) (string, error) {
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
	return parseSrvr(string(reply))
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
