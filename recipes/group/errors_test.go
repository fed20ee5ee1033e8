package group_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// TestLifecycleErrors: a member that is not started, or closed, says so
// ("group member is not started", "group member is closed"), not that the
// client is, and its errors still match ErrNotStarted and ErrClosed. No
// server: the client is never started.
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
	wantErr(t, "WaitJoined before Start", m.WaitJoined(ctx), zkrecipes.ErrNotStarted, "zkrecipes: group member is not started")
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Start after Close", m.Start(), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
	wantErr(t, "SetData after Close", m.SetData(ctx, []byte("x")), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
	wantErr(t, "WaitJoined after Close", m.WaitJoined(ctx), zkrecipes.ErrClosed, "zkrecipes: group member is closed")
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
