package group_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// TestZeroMember: every method of a zero or nil Member answers without a
// panic: an error wrapping ErrInvalidArgument, or nothing.
func TestZeroMember(t *testing.T) {
	ctx := context.Background()
	for name, m := range map[string]*group.Member{"zero": {}, "nil": nil} {
		check := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
				t.Errorf("%s %s: %v, want ErrInvalidArgument", name, what, err)
			}
		}
		check("Start", m.Start(ctx))
		check("SetData", m.SetData(ctx, nil))
		check("Close", m.Close(ctx))
		if m.Members() != nil || m.ID() != "" || m.Path() != "" {
			t.Errorf("%s: Members, ID or Path not empty", name)
		}
		ch, cancel := m.Events()
		cancel()
		if _, ok := <-ch; ok {
			t.Errorf("%s: Events gave an event", name)
		}
	}
}

// TestNewRejects: bad arguments are refused before any I/O, with typed errors.
func TestNewRejects(t *testing.T) {
	c, err := client.New(client.WithServers("127.0.0.1:1")) // never started: New does no I/O
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		make func() error
		want error
	}{
		{"nil client", func() error { _, err := group.New(nil, "/g", "a", nil); return err }, zkrecipes.ErrInvalidArgument},
		{"bad path", func() error { _, err := group.New(c, "g", "a", nil); return err }, zkrecipes.ErrInvalidPath},
		{"path under /zookeeper", func() error { _, err := group.New(c, "/zookeeper/g", "a", nil); return err }, zkrecipes.ErrInvalidPath},
		{"empty id", func() error { _, err := group.New(c, "/g", "", nil); return err }, zkrecipes.ErrInvalidArgument},
		{"id with a slash", func() error { _, err := group.New(c, "/g", "a/b", nil); return err }, zkrecipes.ErrInvalidArgument},
		{"id ..", func() error { _, err := group.New(c, "/g", "..", nil); return err }, zkrecipes.ErrInvalidArgument},
		{"nil option", func() error { _, err := group.New(c, "/g", "a", nil, nil); return err }, zkrecipes.ErrInvalidArgument},
	}
	for _, tc := range cases {
		if err := tc.make(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
