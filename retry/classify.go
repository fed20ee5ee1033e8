package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-zookeeper/zk"
)

// retryableErrors are go-zookeeper sentinels for conditions that pass: the
// connection dropped or was being replaced, no server was reachable, or the
// session moved to another server.
var retryableErrors = []error{
	zk.ErrConnectionClosed,
	zk.ErrNoServer,
	zk.ErrSessionMoved,
	zk.ErrClosing,
	// go-zookeeper hands a request the raw error of a failed socket write
	// (for example "use of closed network connection" when the connection
	// dropped just as the request went out): connection loss, like the rest.
	net.ErrClosed,
	io.EOF,
	io.ErrUnexpectedEOF,
	syscall.ECONNRESET,
	syscall.EPIPE,
	syscall.ECONNREFUSED,
}

// finalErrors are answers from ZooKeeper (or local failures) that another
// attempt would only repeat, plus the context errors, which mean the caller
// gave up.
var finalErrors = []error{
	context.Canceled,
	context.DeadlineExceeded,
	zk.ErrSessionExpired,
	zk.ErrNoNode,
	zk.ErrNodeExists,
	zk.ErrBadVersion,
	zk.ErrNotEmpty,
	zk.ErrNoAuth,
	zk.ErrInvalidACL,
	zk.ErrBadArguments,
	zk.ErrNoChildrenForEphemerals,
	zk.ErrAuthFailed,
	zk.ErrInvalidFlags,
	zk.ErrInvalidPath,
}

// go-zookeeper has no sentinel for the server's ConnectionLoss (-4) and
// OperationTimeout (-7) codes: it reports unmapped codes as a plain
// fmt.Errorf("unknown error: %v", code), so those two are recognised by text.
var retryableCodeTexts = []string{
	"unknown error: -4", // ConnectionLoss
	"unknown error: -7", // OperationTimeout
}

// IsRetryable reports whether err, possibly wrapped (with %w or
// errors.Join), is a transient ZooKeeper condition worth retrying:
// zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionMoved, zk.ErrClosing
// (the connection was being replaced), the server's connection-loss and
// operation-timeout codes, net.Error timeouts, and failed network operations
// (*net.OpError, net.ErrClosed, io.EOF, connection reset or refused, broken
// pipe), which go-zookeeper passes through raw when a write to a dropping
// connection fails.
//
// It returns false for nil, for final answers (zk.ErrNoNode,
// zk.ErrNodeExists, zk.ErrBadVersion, zk.ErrNotEmpty, zk.ErrNoAuth,
// zk.ErrInvalidACL, zk.ErrBadArguments, zk.ErrNoChildrenForEphemerals,
// zk.ErrAuthFailed, zk.ErrInvalidFlags, zk.ErrInvalidPath), for
// context.Canceled and context.DeadlineExceeded, and for anything it does
// not recognise. If err carries both a final and a transient error, final
// wins.
//
// Session expiry is deliberately not retryable here: retrying on a new
// session changes semantics (ephemeral nodes and watches are gone), so
// callers opt in with [IsSessionExpired].
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	for _, target := range finalErrors {
		if errors.Is(err, target) {
			return false
		}
	}
	for _, target := range retryableErrors {
		if errors.Is(err, target) {
			return true
		}
	}
	// context.DeadlineExceeded is itself a net.Error with Timeout() true; it
	// was excluded above, so a timeout found here is a network one.
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	// Any other failed network operation on the way to a server is a lost
	// connection: the client reconnects, and the next attempt may pass.
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	return anyInChain(err, hasRetryableCodeText)
}

// IsSessionExpired reports whether err, possibly wrapped, means the
// ZooKeeper session expired (zk.ErrSessionExpired). All ephemeral nodes and
// watches of that session are gone; recovering requires a new session.
func IsSessionExpired(err error) bool {
	return errors.Is(err, zk.ErrSessionExpired)
}

// hasRetryableCodeText matches the text of an unmapped retryable server code,
// either alone or at the end of a message that embedded it without %w.
func hasRetryableCodeText(err error) bool {
	msg := err.Error()
	for _, t := range retryableCodeTexts {
		if msg == t || strings.HasSuffix(msg, ": "+t) {
			return true
		}
	}
	return false
}

// anyInChain reports whether match holds for err or any error it wraps.
func anyInChain(err error, match func(error) bool) bool {
	if err == nil {
		return false
	}
	if match(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return anyInChain(u.Unwrap(), match)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if anyInChain(e, match) {
				return true
			}
		}
	}
	return false
}
