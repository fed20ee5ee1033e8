package client_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
)

// TestZeroClient calls every exported method of a zero Client: each returns
// a typed error of this package (ErrInvalidArgument, ErrNotStarted or
// ErrClosed), or the documented zero result for a getter;
// none panics, blocks, or leaves a goroutine or a pending delete behind.
// No server is involved.
func TestZeroClient(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	var c client.Client
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	typed := func(method string, err error) error {
		for _, want := range []error{zkrecipes.ErrInvalidArgument, zkrecipes.ErrNotStarted, zkrecipes.ErrClosed} {
			if errors.Is(err, want) {
				return nil
			}
		}
		return fmt.Errorf("zero Client.%s: err = %v, want ErrInvalidArgument, ErrNotStarted or ErrClosed", method, err)
	}
	checks := map[string]func() error{
		"Start": func() error { return typed("Start", c.Start(ctx)) },
		"Conn": func() error {
			conn, err := c.Conn(ctx)
			if conn != nil {
				return fmt.Errorf("zero Client.Conn: a connection")
			}
			return typed("Conn", err)
		},
		"WaitSession": func() error {
			s, err := c.WaitSession(ctx)
			if s != nil {
				return fmt.Errorf("zero Client.WaitSession: a session")
			}
			return typed("WaitSession", err)
		},
		"Do": func() error {
			ran := false
			err := c.Do(ctx, func(context.Context) error { ran = true; return nil })
			if ran {
				return fmt.Errorf("zero Client.Do ran its operation")
			}
			return typed("Do", err)
		},
		"Get":        func() error { _, _, err := c.Get(ctx, "/x"); return typed("Get", err) },
		"Ephemerals": func() error { _, err := c.Ephemerals(ctx, "/"); return typed("Ephemerals", err) },
		"CountDescendants": func() error {
			_, err := c.CountDescendants(ctx, "/")
			return typed("CountDescendants", err)
		},
		"WhoAmI": func() error { _, err := c.WhoAmI(ctx); return typed("WhoAmI", err) },
		"AddWatch": func() error {
			w, err := c.AddWatch(ctx, "/x", true)
			if w != nil {
				return fmt.Errorf("zero Client.AddWatch: a watch")
			}
			return typed("AddWatch", err)
		},
		"GetW": func() error {
			_, _, ch, err := c.GetW(ctx, "/x")
			if ch != nil {
				return fmt.Errorf("zero Client.GetW: a watch channel")
			}
			return typed("GetW", err)
		},
		"GetWatch": func() error {
			_, _, w, err := c.GetWatch(ctx, "/x")
			if w != nil {
				return fmt.Errorf("zero Client.GetWatch: a watch")
			}
			return typed("GetWatch", err)
		},
		"ExistsWatch": func() error {
			_, _, w, err := c.ExistsWatch(ctx, "/x")
			if w != nil {
				return fmt.Errorf("zero Client.ExistsWatch: a watch")
			}
			return typed("ExistsWatch", err)
		},
		"ChildrenWatch": func() error {
			_, _, w, err := c.ChildrenWatch(ctx, "/x")
			if w != nil {
				return fmt.Errorf("zero Client.ChildrenWatch: a watch")
			}
			return typed("ChildrenWatch", err)
		},
		"DataWatches": func() error {
			if n, m := c.DataWatches(); n != 0 || m != 0 {
				return fmt.Errorf("zero Client.DataWatches: %d, %d", n, m)
			}
			return nil
		},
		"Set":    func() error { _, err := c.Set(ctx, "/x", nil, -1); return typed("Set", err) },
		"Exists": func() error { _, _, err := c.Exists(ctx, "/x"); return typed("Exists", err) },
		"ExistsW": func() error {
			_, _, ch, err := c.ExistsW(ctx, "/x")
			if ch != nil {
				return fmt.Errorf("zero Client.ExistsW: a watch channel")
			}
			return typed("ExistsW", err)
		},
		"Children": func() error { _, _, err := c.Children(ctx, "/x"); return typed("Children", err) },
		"ChildrenW": func() error {
			_, _, ch, err := c.ChildrenW(ctx, "/x")
			if ch != nil {
				return fmt.Errorf("zero Client.ChildrenW: a watch channel")
			}
			return typed("ChildrenW", err)
		},
		"Delete":         func() error { return typed("Delete", c.Delete(ctx, "/x", -1)) },
		"DeleteIfExists": func() error { return typed("DeleteIfExists", c.DeleteIfExists(ctx, "/x")) },
		"Create":         func() error { _, err := c.Create(ctx, "/x", nil, 0); return typed("Create", err) },
		"CreateWithParents": func() error {
			_, err := c.Create(ctx, "/x/y", nil, 0, client.WithParents())
			return typed("CreateWithParents", err)
		},
		"CreateProtected": func() error {
			_, err := c.CreateProtected(ctx, "/x/lock-", nil, zk.FlagEphemeral|zk.FlagSequence)
			return typed("CreateProtected", err)
		},
		"CreateTTL": func() error {
			_, err := c.Create(ctx, "/x", nil, zk.FlagTTL, client.WithTTL(time.Second))
			return typed("CreateTTL", err)
		},
		"CreateTTLWithParents": func() error {
			_, err := c.Create(ctx, "/x/y", nil, zk.FlagTTL, client.WithTTL(time.Second), client.WithParents())
			return typed("CreateTTLWithParents", err)
		},
		"CreateProtectedTTL": func() error {
			_, err := c.CreateProtected(ctx, "/x/n", nil, zk.FlagTTL, client.WithTTL(time.Second))
			return typed("CreateProtectedTTL", err)
		},
		"ReplaceProtected": func() error {
			_, err := c.ReplaceProtected(ctx, client.ProtectedNode{Path: "/x/lock-0"}, "/x/lock-", nil, zk.FlagEphemeral|zk.FlagSequence)
			return typed("ReplaceProtected", err)
		},
		"EnsureContainers": func() error { return typed("EnsureContainers", c.EnsureContainers(ctx, "/x/y")) },
		"Multi": func() error {
			_, err := c.Multi(ctx, &zk.DeleteRequest{Path: "/x", Version: -1})
			return typed("Multi", err)
		},
		"DeleteGuaranteed": func() error {
			err := c.DeleteGuaranteed(ctx, "/x", nil)
			if n := c.PendingDeletes(); n != 0 {
				return fmt.Errorf("zero Client.DeleteGuaranteed left %d pending deletes (err %v)", n, err)
			}
			return typed("DeleteGuaranteed", err)
		},
		"DeletesGivenUp": func() error {
			if n := c.DeletesGivenUp(); n != 0 {
				return fmt.Errorf("zero Client.DeletesGivenUp: %d", n)
			}
			return nil
		},
		"PendingDeletes": func() error {
			if n := c.PendingDeletes(); n != 0 {
				return fmt.Errorf("zero Client.PendingDeletes: %d", n)
			}
			return nil
		},
		"State": func() error {
			if s := c.State(); s != 0 {
				return fmt.Errorf("zero Client.State: %v", s)
			}
			return nil
		},
		"Session": func() error {
			if s := c.Session(); s != nil {
				return fmt.Errorf("zero Client.Session: a session")
			}
			return nil
		},
		"SessionTimeout": func() error { _ = c.SessionTimeout(); return nil },
		"Namespace": func() error {
			if ns := c.Namespace(); ns != "" {
				return fmt.Errorf("zero Client.Namespace: %q", ns)
			}
			return nil
		},
		"Disconnected": func() error {
			select {
			case <-c.Disconnected():
				return nil // documented: closed before the first session
			default:
				return fmt.Errorf("zero Client.Disconnected: channel not closed")
			}
		},
		"NodeEvents": func() error {
			ch, cancel, err := c.NodeEvents("/")
			if ch != nil || cancel != nil {
				return fmt.Errorf("zero Client.NodeEvents: a channel or cancel func with error %v", err)
			}
			return typed("NodeEvents", err)
		},
		"Subscribe": func() error {
			ch, unsubscribe := c.Subscribe()
			if ch == nil || unsubscribe == nil {
				return fmt.Errorf("zero Client.Subscribe: nil channel or cancel func")
			}
			unsubscribe()
			select {
			case _, ok := <-ch:
				if ok {
					return fmt.Errorf("zero Client.Subscribe: an event")
				}
				return nil
			case <-time.After(time.Second):
				return fmt.Errorf("zero Client.Subscribe: channel not closed by its cancel")
			}
		},
	}
	var covered []string
	for name, check := range checks {
		covered = append(covered, name)
		zerocheck.Call(t, "zero Client."+name, check)
	}
	// Close last: afterwards every call may well say ErrClosed.
	covered = append(covered, "Close")
	zerocheck.Call(t, "zero Client.Close", func() error { return typed("Close", c.Close()) })
	zerocheck.Call(t, "zero Client.Close (again)", func() error { return typed("Close", c.Close()) })

	typ := reflect.TypeOf(&c)
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !slices.Contains(covered, name) {
			t.Errorf("%v.%s has no zero-value check", typ, name)
		}
	}
	goleak.VerifyNone(t, ignore)
}
