package queue_test

import (
	"errors"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// newClient is a client that was never started: the constructors do no
// I/O, so their checks need no server.
func newClient(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConstructorsRefuseBadInput: a nil client, bad paths and bad options
// are typed errors from every constructor.
func TestConstructorsRefuseBadInput(t *testing.T) {
	c := newClient(t)
	type ctor func(*client.Client, string, ...queue.Option) error
	ctors := map[string]ctor{
		"New": func(c *client.Client, p string, o ...queue.Option) error { _, err := queue.New(c, p, o...); return err },
		"NewID": func(c *client.Client, p string, o ...queue.Option) error {
			_, err := queue.NewID(c, p, o...)
			return err
		},
		"NewPriority": func(c *client.Client, p string, o ...queue.Option) error {
			_, err := queue.NewPriority(c, p, o...)
			return err
		},
		"NewDelay": func(c *client.Client, p string, o ...queue.Option) error {
			_, err := queue.NewDelay(c, p, o...)
			return err
		},
		"NewSimple": func(c *client.Client, p string, o ...queue.Option) error {
			_, err := queue.NewSimple(c, p, o...)
			return err
		},
	}
	badPath := []string{"", "q", "/q/", "/", "/a//b", "/zookeeper/q", "/a/./b"}
	badArg := map[string][]queue.Option{
		"nil option":          {nil},
		"zero max items":      {queue.WithMaxItems(0)},
		"negative max items":  {queue.WithMaxItems(-3)},
		"error mode, no lock": {queue.WithErrorMode(queue.Delete)},
		"unknown error mode":  {queue.WithLockPath("/l"), queue.WithErrorMode(queue.ErrorMode(7))},
		"negative refresh":    {queue.WithMinItemsBeforeRefresh(-1)},
		"tiny max buffer":     {queue.WithMaxBuffer(100)},
	}
	badPathOpt := map[string][]queue.Option{
		"relative lock path":  {queue.WithLockPath("locks")},
		"root lock path":      {queue.WithLockPath("/")},
		"lock path = queue":   {queue.WithLockPath("/q")},
		"lock path under":     {queue.WithLockPath("/q/locks")},
		"lock path above":     {queue.WithLockPath("/")},
		"consumer path root":  {queue.WithConsumerPath("/")},
		"consumer path under": {queue.WithConsumerPath("/q/c")},
		"lock = consumers":    {queue.WithLockPath("/l"), queue.WithConsumerPath("/l")},
	}
	for name, newQ := range ctors {
		if err := newQ(nil, "/q"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s(nil client): %v", name, err)
		}
		for _, p := range badPath {
			var pe *client.PathError
			if err := newQ(c, p); !errors.As(err, &pe) || !errors.Is(err, zkrecipes.ErrInvalidPath) {
				t.Errorf("%s(%q): %v, want a *client.PathError", name, p, err)
			}
		}
		if name == "NewSimple" {
			for _, o := range [][]queue.Option{{queue.WithLockPath("/l")}, {queue.WithMaxItems(3)}} {
				if err := newQ(c, "/q", o...); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
					t.Errorf("NewSimple with a lock path or max items: %v", err)
				}
			}
			continue
		}
		for what, opts := range badArg {
			if err := newQ(c, "/q", opts...); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
				t.Errorf("%s with %s: %v, want ErrInvalidArgument", name, what, err)
			}
		}
		for what, opts := range badPathOpt {
			if err := newQ(c, "/q", opts...); !errors.Is(err, zkrecipes.ErrInvalidPath) {
				t.Errorf("%s with %s: %v, want a *client.PathError", name, what, err)
			}
		}
		if err := newQ(c, "/q", queue.WithLockPath("/q-locks"), queue.WithMaxItems(5), queue.WithErrorMode(queue.Delete),
			queue.WithMinItemsBeforeRefresh(3), queue.WithConsumerPath("/c"), queue.WithMaxBuffer(4<<20), queue.WithLostOnSessionLossOnly()); err != nil {
			t.Errorf("%s with every option: %v", name, err)
		}
	}
}
