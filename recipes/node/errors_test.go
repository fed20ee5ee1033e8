package node_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// TestLifecycleErrors: a node that is not started, or closed, says so
// ("node is not started", "node is closed"), not that the client is, and
// its errors still match ErrNotStarted and ErrClosed. No server: the
// client is never started.
func TestLifecycleErrors(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := node.New(c, "/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "WaitForInitialCreate before Start", n.WaitForInitialCreate(ctx), zkrecipes.ErrNotStarted, "zkrecipes: node is not started")
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Start after Close", n.Start(), zkrecipes.ErrClosed, "zkrecipes: node is closed")
	wantErr(t, "SetData after Close", n.SetData(ctx, []byte("x")), zkrecipes.ErrClosed, "zkrecipes: node is closed")
	wantErr(t, "WaitForInitialCreate after Close", n.WaitForInitialCreate(ctx), zkrecipes.ErrClosed, "zkrecipes: node is closed")
}

// wantErr fails unless err matches sentinel and says msg, not what the
// client's sentinels say.
func wantErr(t *testing.T, what string, err, sentinel error, msg string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: %v, want an error matching %v", what, err, sentinel)
	}
	if err == nil || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "client is") {
		t.Errorf("%s: %q, want it to say %q", what, err, msg)
	}
}
