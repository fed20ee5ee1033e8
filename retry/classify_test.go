package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/go-zookeeper/zk"
)

// fakeNetErr is a net.Error with a chosen Timeout answer.
type fakeNetErr struct{ timeout bool }

func (e fakeNetErr) Error() string   { return fmt.Sprintf("fake net error (timeout=%v)", e.timeout) }
func (e fakeNetErr) Timeout() bool   { return e.timeout }
func (e fakeNetErr) Temporary() bool { return e.timeout }

// serverCode reproduces how go-zookeeper reports a server code it has no
// sentinel for.
func serverCode(code int32) error {
	return fmt.Errorf("unknown error: %v", zk.ErrCode(code))
}

func TestIsRetryable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},

		{"ErrConnectionClosed", zk.ErrConnectionClosed, true},
		{"ErrNoServer", zk.ErrNoServer, true},
		{"ErrSessionMoved", zk.ErrSessionMoved, true},
		{"ErrClosing", zk.ErrClosing, true},
		{"connection loss code", serverCode(-4), true},
		{"operation timeout code", serverCode(-7), true},
		{"net timeout", fakeNetErr{timeout: true}, true},
		{"net.OpError deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},

		{"wrapped ErrNoServer", fmt.Errorf("create /a: %w", zk.ErrNoServer), true},
		{"twice wrapped ErrConnectionClosed", fmt.Errorf("lock: %w", fmt.Errorf("get: %w", zk.ErrConnectionClosed)), true},
		{"wrapped connection loss", fmt.Errorf("set /a: %w", serverCode(-4)), true},
		{"connection loss embedded with %v", fmt.Errorf("set /a: %v", serverCode(-7)), true},
		{"joined connection loss", errors.Join(errors.New("first"), serverCode(-4)), true},
		{"joined ErrClosing", errors.Join(errors.New("first"), zk.ErrClosing), true},
		{"wrapped net timeout", fmt.Errorf("dial: %w", fakeNetErr{timeout: true}), true},

		{"ErrNoNode", zk.ErrNoNode, false},
		{"ErrNodeExists", zk.ErrNodeExists, false},
		{"ErrBadVersion", zk.ErrBadVersion, false},
		{"ErrNotEmpty", zk.ErrNotEmpty, false},
		{"ErrNoAuth", zk.ErrNoAuth, false},
		{"ErrInvalidACL", zk.ErrInvalidACL, false},
		{"ErrBadArguments", zk.ErrBadArguments, false},
		{"ErrNoChildrenForEphemerals", zk.ErrNoChildrenForEphemerals, false},
		{"ErrAuthFailed", zk.ErrAuthFailed, false},
		{"ErrInvalidFlags", zk.ErrInvalidFlags, false},
		{"ErrInvalidPath", zk.ErrInvalidPath, false},
		{"ErrSessionExpired", zk.ErrSessionExpired, false},
		{"ErrUnknown", zk.ErrUnknown, false},
		{"ErrAPIError", zk.ErrAPIError, false},
		{"ErrNothing", zk.ErrNothing, false},
		{"context.Canceled", context.Canceled, false},
		{"context.DeadlineExceeded (itself a net timeout)", context.DeadlineExceeded, false},
		{"wrapped DeadlineExceeded", fmt.Errorf("get: %w", context.DeadlineExceeded), false},
		{"system error code", serverCode(-1), false},
		{"code -40 is not -4", serverCode(-40), false},
		{"code -70 is not -7", serverCode(-70), false},
		{"text only mentions the code", errors.New("unknown error: -4 happened"), false},
		{"net error, not a timeout", fakeNetErr{timeout: false}, false},
		{"net.OpError refused", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{"write on a closed connection", &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}, true},
		{"net.ErrClosed wrapped", fmt.Errorf("send: %w", net.ErrClosed), true},
		{"EOF", io.EOF, true},
		{"reset", syscall.ECONNRESET, true},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"final wins over a network error", errors.Join(zk.ErrNoNode, io.EOF), false},
		{"unknown error", errors.New("something else"), false},

		{"wrapped ErrNoNode", fmt.Errorf("delete /a: %w", zk.ErrNoNode), false},
		{"wrapped ErrSessionExpired", fmt.Errorf("get: %w", zk.ErrSessionExpired), false},
		{"final wins over transient", errors.Join(zk.ErrConnectionClosed, zk.ErrNoNode), false},
		{"canceled wins over transient", errors.Join(zk.ErrNoServer, context.Canceled), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRetryable(tc.err); got != tc.want {
				t.Fatalf("IsRetryable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestIsSessionExpired(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"ErrSessionExpired", zk.ErrSessionExpired, true},
		{"wrapped", fmt.Errorf("get /a: %w", zk.ErrSessionExpired), true},
		{"joined", errors.Join(errors.New("x"), zk.ErrSessionExpired), true},
		{"ErrConnectionClosed", zk.ErrConnectionClosed, false},
		{"ErrNoNode", zk.ErrNoNode, false},
		{"session expired code text is mapped, not unknown", serverCode(-112), false},
		{"context.Canceled", context.Canceled, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsSessionExpired(tc.err); got != tc.want {
				t.Fatalf("IsSessionExpired(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
