package hookmetrics

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestOpIndex: every op label is its own index; a name the client does
// not list counts as client.OpOther.
func TestOpIndex(t *testing.T) {
	for i, op := range OpLabels {
		if got := OpIndex(op); got != i {
			t.Errorf("OpIndex(%q) = %d, want %d", op, got, i)
		}
	}
	for _, op := range []string{"someNewOp", "", "Create"} {
		if got := OpLabels[OpIndex(op)]; got != client.OpOther {
			t.Errorf("OpIndex(%q) is %q's, want %q's", op, got, client.OpOther)
		}
	}
}

// TestErrorIndex: the label client.RequestHook.Label gives each failed
// request is in ErrorLabels, at its own index; an unknown label counts as
// client.RequestError.
func TestErrorIndex(t *testing.T) {
	for _, err := range []error{
		zk.ErrNoNode, zk.ErrNodeExists, zk.ErrBadVersion, zk.ErrNotEmpty, zk.ErrNoAuth, zk.ErrAuthFailed,
		zk.ErrConnectionClosed, zk.ErrSessionExpired, zk.ErrClosing, zk.ErrBadArguments,
		fmt.Errorf("wrapped: %w", zk.ErrNoNode), errors.New("anything else"),
	} {
		label := client.RequestHook{Op: client.OpCreate, Err: err}.Label()
		if got := ErrorLabels[ErrorIndex(label)]; got != label {
			t.Errorf("%v: label %q counted as %q", err, label, got)
		}
	}
	for _, label := range []string{client.RequestOK, "no_such_label"} {
		if got := ErrorLabels[ErrorIndex(label)]; got != client.RequestError {
			t.Errorf("ErrorIndex(%q) is %q's, want %q's", label, got, client.RequestError)
		}
	}
}
