package barrier_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
)

// TestBadInput: a nil client, bad paths (the root included), a member
// count below 1 and a nil option are refused by the constructors, before
// any I/O, with typed errors.
func TestBadInput(t *testing.T) {
	c, err := client.New(client.WithServers("127.0.0.1:1")) // never started: no I/O expected
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := barrier.New(nil, "/b"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("New(nil client): %v", err)
	}
	if _, err := barrier.NewDouble(nil, "/b", 2); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewDouble(nil client): %v", err)
	}
	for _, p := range []string{"", "b", "/", "/b/", "/a//b", "/a/../b", "/zookeeper", "/zookeeper/b", "/a\x00b"} {
		_, err := barrier.New(c, p)
		var pe *client.PathError
		if !errors.Is(err, zkrecipes.ErrInvalidPath) || !errors.As(err, &pe) {
			t.Errorf("New(%q): %v, want a *client.PathError", p, err)
		}
		if _, err := barrier.NewDouble(c, p, 2); !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("NewDouble(%q): %v", p, err)
		}
	}
	for _, n := range []int{0, -1, -1 << 31} {
		if _, err := barrier.NewDouble(c, "/b", n); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("NewDouble(n=%d): %v", n, err)
		}
	}
	if _, err := barrier.New(c, "/b", nil); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("New(nil option): %v", err)
	}
	if _, err := barrier.NewDouble(c, "/b", 2, nil); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewDouble(nil option): %v", err)
	}
	if d, err := barrier.NewDouble(c, "/b", 1, barrier.WithData(nil)); err != nil || d.Members() != 1 || d.Path() != "/b" {
		t.Errorf("NewDouble(/b, 1): %v, %v", d, err)
	}
}

// TestUseWithoutServer: on a client that was never started, calls fail
// with the client's ErrNotStarted; after Close every call fails with
// ErrClosed, at once; Close is idempotent. Nothing waits.
func TestUseWithoutServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, _ := barrier.New(c, "/b")
	d, _ := barrier.NewDouble(c, "/d", 2)
	for what, err := range map[string]error{"Set": b.Set(ctx), "Wait": b.Wait(ctx), "Remove": b.Remove(ctx), "Enter": d.Enter(ctx)} {
		if !errors.Is(err, zkrecipes.ErrNotStarted) {
			t.Errorf("%s before Start: %v, want ErrNotStarted", what, err)
		}
	}
	if err := d.Leave(ctx); !errors.Is(err, barrier.ErrNotEntered) {
		t.Errorf("Leave before Enter: %v, want ErrNotEntered", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("Barrier.Close: %v", err)
	}
	if err := d.Close(ctx); err != nil {
		t.Errorf("Double.Close: %v", err)
	}
	if err := d.Close(ctx); err != nil {
		t.Errorf("second Double.Close: %v", err)
	}
	for what, err := range map[string]error{"Set": b.Set(ctx), "Wait": b.Wait(ctx), "Remove": b.Remove(ctx),
		"Enter": d.Enter(ctx), "Leave": d.Leave(ctx), "Close": b.Close()} {
		if what == "Close" {
			if err != nil {
				t.Errorf("second Barrier.Close: %v", err)
			}
			continue
		}
		if !errors.Is(err, zkrecipes.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", what, err)
		}
	}
}
