package client_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
)

// TestZeroConn: every method of a nil or zero Conn fails with
// ErrNotStarted (or returns its zero value) without a panic or any I/O.
func TestZeroConn(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]*client.Conn{"zero": {}, "nil": nil} {
		notStarted := func(method string, err error) error {
			if !errors.Is(err, zkrecipes.ErrNotStarted) {
				return fmt.Errorf("%s Conn.%s: err = %v, want ErrNotStarted", name, method, err)
			}
			return nil
		}
		checks := map[string]func() error{
			"Get":      func() error { _, _, err := c.Get(ctx, "/x"); return notStarted("Get", err) },
			"Set":      func() error { _, err := c.Set(ctx, "/x", nil, -1); return notStarted("Set", err) },
			"GetACL":   func() error { _, _, err := c.GetACL(ctx, "/x"); return notStarted("GetACL", err) },
			"Sync":     func() error { _, err := c.Sync(ctx, "/x"); return notStarted("Sync", err) },
			"Create":   func() error { _, _, err := c.Create(ctx, "/x", nil, 0); return notStarted("Create", err) },
			"Delete":   func() error { return notStarted("Delete", c.Delete(ctx, "/x", -1)) },
			"Children": func() error { _, _, err := c.Children(ctx, "/x"); return notStarted("Children", err) },
			"Multi": func() error {
				_, err := c.Multi(ctx, &zk.DeleteRequest{Path: "/x", Version: -1})
				return notStarted("Multi", err)
			},
			"Batch": func() error {
				b := c.Batch()
				b.Create("/x", nil, 0)
				r := b.Get("/x")
				b.Multi(&zk.DeleteRequest{Path: "/x", Version: -1})
				if err := notStarted("Batch.Send", b.Send(ctx)); err != nil {
					return err
				}
				return notStarted("Reply.Err", r.Err())
			},
			"Server": func() error {
				if s := c.Server(); s != "" {
					return fmt.Errorf("%s Conn.Server: %q", name, s)
				}
				return nil
			},
			"SessionID": func() error {
				if id := c.SessionID(); id != 0 {
					return fmt.Errorf("%s Conn.SessionID: %d", name, id)
				}
				return nil
			},
		}
		var covered []string
		for m, check := range checks {
			covered = append(covered, m)
			zerocheck.Call(t, name+"."+m, check)
		}
		zerocheck.RequireCovered(t, reflect.TypeOf(c), covered)
	}
}
