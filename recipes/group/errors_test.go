package group_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// TestLifecycleErrors: a member that is started already, or closed, says
// so ("group member is already started", "group member is closed"), not
// that the client is, and its errors still match ErrAlreadyStarted and
// ErrClosed; a Start whose ctx ends before the member joined returns ctx's
// error, naming the member's node. No server: the client is never started.
func TestLifecycleErrors(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m, err := group.New(c, "/g", "m1", nil)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	wantErr(t, "Start without a session", m.Start(short), context.DeadlineExceeded, "/g/m1")
	wantErr(t, "second Start", m.Start(ctx), zkrecipes.ErrAlreadyStarted, "zkrecipes: group member is already started")
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Start after Close", m.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
	wantErr(t, "SetData after Close", m.SetData(ctx, []byte("x")), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
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
