package node_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// TestZeroNode calls every exported method of a zero Node and of a nil
// *Node: each returns an error wrapping ErrInvalidArgument, or the zero
// result for a getter (Events a closed channel), and none panics,
// blocks or leaves a goroutine. No server is involved.
func TestZeroNode(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var zero node.Node
	for what, n := range map[string]*node.Node{"zero Node": &zero, "nil Node": nil} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		invalid := func(method string, err error) error {
			if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
				return fmt.Errorf("%s.%s: err = %v, want one wrapping ErrInvalidArgument", what, method, err)
			}
			return nil
		}
		checks := map[string]func() error{
			"Start":   func() error { return invalid("Start", n.Start(ctx)) },
			"SetData": func() error { return invalid("SetData", n.SetData(ctx, []byte("x"))) },
			"Close":   func() error { return invalid("Close", n.Close(ctx)) },
			"Path": func() error {
				if p := n.Path(); p != "" {
					return fmt.Errorf("%s.Path: %q", what, p)
				}
				return nil
			},
			"Data": func() error {
				if d := n.Data(); d != nil {
					return fmt.Errorf("%s.Data: %q", what, d)
				}
				return nil
			},
			"Events": func() error {
				ch, cancel := n.Events()
				cancel()
				cancel()
				if _, ok := <-ch; ok {
					return fmt.Errorf("%s.Events: an event", what)
				}
				return nil
			},
		}
		var covered []string
		for name, check := range checks {
			covered = append(covered, name)
			zerocheck.Call(t, what+"."+name, check)
		}
		zerocheck.RequireCovered(t, reflect.TypeOf(n), covered)
		cancel()
	}
}

// TestNewArguments: bad arguments are refused by New with a typed error,
// before any I/O (the client has no server and is never started); a
// handle's calls before Start and after Close answer as documented.
func TestNewArguments(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if _, err := node.New(nil, "/n", nil); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("nil client: %v", err)
	}
	for _, p := range []string{"", "n", "/n/", "/a//b", "/a/./b", "/zookeeper/n", "/"} {
		_, err := node.New(c, p, nil)
		var pe *client.PathError
		if !errors.Is(err, zkrecipes.ErrInvalidPath) || !errors.As(err, &pe) {
			t.Errorf("path %q: %v, want a *client.PathError", p, err)
		}
	}
	bad := map[string][]node.Option{
		"nil option":                        {nil},
		"unknown mode":                      {node.WithMode(node.Mode(9))},
		"negative mode":                     {node.WithMode(node.Mode(-1))},
		"zero TTL":                          {node.WithTTL(0)},
		"negative TTL":                      {node.WithTTL(-time.Second)},
		"TTL under 1ms":                     {node.WithTTL(time.Microsecond)},
		"TTL over the maximum":              {node.WithTTL(client.MaxTTL + time.Millisecond)},
		"ephemeral TTL":                     {node.WithMode(node.Ephemeral), node.WithTTL(time.Second)},
		"ephemeral TTL, TTL first":          {node.WithTTL(time.Second), node.WithMode(node.EphemeralSequential), node.WithProtection()},
		"unprotected ephemeral sequential":  {node.WithMode(node.EphemeralSequential)},
		"unprotected persistent sequential": {node.WithMode(node.PersistentSequential)},
	}
	for name, opts := range bad {
		if n, err := node.New(c, "/n", nil, opts...); !errors.Is(err, zkrecipes.ErrInvalidArgument) || n != nil {
			t.Errorf("%s: %v, %v; want ErrInvalidArgument", name, n, err)
		}
	}
	good := map[string][]node.Option{
		"default":                        nil,
		"protected":                      {node.WithProtection()},
		"protected ephemeral sequential": {node.WithMode(node.EphemeralSequential), node.WithProtection()},
		"persistent":                     {node.WithMode(node.Persistent)},
		"TTL":                            {node.WithTTL(time.Second)},
		"sequential TTL":                 {node.WithMode(node.PersistentSequential), node.WithTTL(client.MaxTTL), node.WithProtection()},
	}
	for name, opts := range good {
		if _, err := node.New(c, "/n", nil, opts...); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	// nil data is fine; the data given is copied.
	data := []byte("abc")
	n, err := node.New(c, "/n", data)
	if err != nil {
		t.Fatal(err)
	}
	data[0] = 'X'
	if got := string(n.Data()); got != "abc" {
		t.Errorf("Data = %q after the caller changed its slice, want abc", got)
	}
	ctx := context.Background()
	if err := n.SetData(ctx, nil); err != nil {
		t.Errorf("SetData before Start: %v (it is remembered for the first create)", err)
	}
	if d := n.Data(); len(d) != 0 {
		t.Errorf("Data after SetData(nil) = %q", d)
	}
	if n.Path() != "" {
		t.Errorf("Path before the first create: %q", n.Path())
	}
	if err := n.Close(ctx); err != nil {
		t.Errorf("Close before Start: %v", err)
	}
	if err := n.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for what, err := range map[string]error{
		"Start":   n.Start(ctx),
		"SetData": n.SetData(ctx, []byte("x")),
	} {
		if !errors.Is(err, zkrecipes.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", what, err)
		}
	}
	if ch, _ := n.Events(); ch != nil {
		if _, ok := <-ch; ok {
			t.Error("Events after Close gave an open channel")
		}
	}
	for m, want := range map[node.Mode]string{node.Ephemeral: "EPHEMERAL", node.PersistentSequential: "PERSISTENT_SEQUENTIAL", node.Mode(7): "Mode(7)"} {
		if m.String() != want {
			t.Errorf("Mode(%d).String() = %q, want %q", int(m), m.String(), want)
		}
	}
}
