package node_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// TestLifecycleErrors: a node that is started already, or closed, says so
// ("node is already started", "node is closed"), not that the client is,
// and its errors still match ErrAlreadyStarted and ErrClosed; a Start
// whose ctx ends before the node is made returns ctx's error, naming the
// node. No server: the client is never started.
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
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	wantErr(t, "Start without a session", n.Start(short), context.DeadlineExceeded, "zkrecipes: start node /a")
	wantErr(t, "second Start", n.Start(ctx), zkrecipes.ErrAlreadyStarted, "zkrecipes: node is already started")
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Start after Close", n.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: node is closed")
	wantErr(t, "SetData after Close", n.SetData(ctx, []byte("x")), zkrecipes.ErrClosed, "zkrecipes: node is closed")
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
