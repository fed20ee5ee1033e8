package shared_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// TestZeroCount: every method of a zero Count returns an error wrapping
// ErrInvalidArgument (Events a closed channel) and none panics. No server.
func TestZeroCount(t *testing.T) {
	var c shared.Count
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	check("Start", c.Start(ctx))
	_, err := c.Get()
	check("Get", err)
	check("Set", c.Set(ctx, 1))
	_, err = c.TrySet(ctx, shared.Value{}, 1)
	check("TrySet", err)
	check("Close", c.Close())
	sub, cancel := c.Events()
	cancel()
	cancel()
	if _, ok := <-sub; ok {
		t.Error("Events of a zero Count is not closed")
	}
	if c.Path() != "" {
		t.Error("Path of a zero Count is not empty")
	}
}

// TestNewCountArguments: bad arguments are refused before any I/O.
func TestNewCountArguments(t *testing.T) {
	_, err := shared.NewCount(nil, "/c", 0)
	if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("nil client: %v", err)
	}
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range []string{"", "c", "/c/", "/a//b", "/zookeeper/x"} {
		_, err := shared.NewCount(c, p, 0)
		var pe *client.PathError
		if !errors.Is(err, zkrecipes.ErrInvalidPath) || !errors.As(err, &pe) {
			t.Errorf("path %q: %v", p, err)
		}
	}
	if _, err := shared.NewCount(c, "/c", 0, nil); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("nil option: %v", err)
	}
	cnt, err := shared.NewCount(c, "/c", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cnt.Get(); !errors.Is(err, zkrecipes.ErrNotStarted) {
		t.Errorf("Get before Start: %v", err)
	}
	if err := cnt.Set(context.Background(), 1); !errors.Is(err, zkrecipes.ErrNotStarted) {
		t.Errorf("Set before Start: %v", err)
	}
	if err := cnt.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := cnt.Start(context.Background()); !errors.Is(err, zkrecipes.ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	sub, cancel := cnt.Events()
	defer cancel()
	select {
	case _, ok := <-sub:
		if ok {
			t.Error("Events after Close gave a value")
		}
	default:
		t.Error("Events after Close gave an open channel")
	}
}

// TestZeroBytes: every method of a zero Bytes returns an error wrapping
// ErrInvalidArgument (Events a closed channel) and none panics; bad
// arguments to NewBytes are refused before any I/O.
func TestZeroBytes(t *testing.T) {
	var b shared.Bytes
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	check("Start", b.Start(ctx))
	_, err := b.Get()
	check("Get", err)
	check("Set", b.Set(ctx, []byte("x")))
	_, err = b.TrySet(ctx, shared.Versioned{}, nil)
	check("TrySet", err)
	check("Close", b.Close())
	sub, cancel := b.Events()
	cancel()
	if _, ok := <-sub; ok {
		t.Error("Events of a zero Bytes is not closed")
	}
	if b.Path() != "" {
		t.Error("Path of a zero Bytes is not empty")
	}
	var nilBytes *shared.Bytes
	check("nil Start", nilBytes.Start(ctx))

	_, err = shared.NewBytes(nil, "/v", nil)
	check("nil client", err)
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var pe *client.PathError
	if _, err := shared.NewBytes(c, "v/", nil); !errors.As(err, &pe) {
		t.Errorf("bad path: %v", err)
	}
	_, err = shared.NewBytes(c, "/v", nil, nil)
	check("nil option", err)
	v, err := shared.NewBytes(c, "/v", []byte("seed"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get(); !errors.Is(err, zkrecipes.ErrNotStarted) {
		t.Errorf("Get before Start: %v", err)
	}
	if _, err := v.TrySet(ctx, shared.Versioned{}, nil); !errors.Is(err, zkrecipes.ErrNotStarted) {
		t.Errorf("TrySet before Start: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := v.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := v.Start(ctx); !errors.Is(err, zkrecipes.ErrClosed) || !strings.Contains(err.Error(), "shared value") {
		t.Errorf("Start after Close: %v", err)
	}
}
