package counter_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// TestZeroCounter calls every exported method of a zero Counter and of a
// nil *Counter: each returns an error wrapping ErrInvalidArgument (Path
// ""), and none panics or blocks. No server.
func TestZeroCounter(t *testing.T) {
	for what, c := range map[string]*counter.Counter{"zero Counter": {}, "nil *Counter": nil} {
		ctx := context.Background()
		invalid := func(method string, r counter.Result, err error) error {
			if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
				return fmt.Errorf("%s.%s: err = %v, want one wrapping ErrInvalidArgument", what, method, err)
			}
			if r.Succeeded {
				return fmt.Errorf("%s.%s: succeeded", what, method)
			}
			return nil
		}
		checks := map[string]func() error{
			"Get":           func() error { r, err := c.Get(ctx); return invalid("Get", r, err) },
			"Add":           func() error { r, err := c.Add(ctx, 1); return invalid("Add", r, err) },
			"Increment":     func() error { r, err := c.Increment(ctx); return invalid("Increment", r, err) },
			"Decrement":     func() error { r, err := c.Decrement(ctx); return invalid("Decrement", r, err) },
			"Subtract":      func() error { r, err := c.Subtract(ctx, 1); return invalid("Subtract", r, err) },
			"TrySet":        func() error { r, err := c.TrySet(ctx, 1); return invalid("TrySet", r, err) },
			"CompareAndSet": func() error { r, err := c.CompareAndSet(ctx, 0, 1); return invalid("CompareAndSet", r, err) },
			"ForceSet":      func() error { return invalid("ForceSet", counter.Result{}, c.ForceSet(ctx, 1)) },
			"Initialize": func() error {
				ok, err := c.Initialize(ctx, 1)
				return invalid("Initialize", counter.Result{Succeeded: ok}, err)
			},
			"Path": func() error {
				if p := c.Path(); p != "" {
					return fmt.Errorf("%s.Path: %q", what, p)
				}
				return nil
			},
		}
		var names []string
		for name, check := range checks {
			names = append(names, name)
			zerocheck.Call(t, what+"."+name, check)
		}
		zerocheck.RequireCovered(t, reflect.TypeOf(c), names)
	}
}

// TestNewArguments: bad arguments are refused before any I/O, with typed
// errors; a client that is not started or is closed gives typed errors too.
func TestNewArguments(t *testing.T) {
	_, err := counter.New(nil, "/c")
	if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("nil client: %v", err)
	}
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", "c", "/c/", "/a//b", "/zookeeper/x", "/a/./b"} {
		_, err := counter.New(c, p)
		var pe *client.PathError
		if !errors.Is(err, zkrecipes.ErrInvalidPath) || !errors.As(err, &pe) {
			t.Errorf("path %q: %v", p, err)
		}
		_, err = counter.New(c, "/c", counter.WithPromotedLock(counter.PromotedLock{Path: p}))
		if !errors.Is(err, zkrecipes.ErrInvalidPath) || !errors.As(err, &pe) {
			t.Errorf("lock path %q: %v", p, err)
		}
	}
	bad := map[string]counter.Option{
		"nil option":       nil,
		"nil retry policy": counter.WithRetryPolicy(nil),
		"negative timeout": counter.WithPromotedLock(counter.PromotedLock{Path: "/l", Timeout: -time.Second}),
	}
	for what, opt := range bad {
		if _, err := counter.New(c, "/c", opt); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v", what, err)
		}
	}
	once, _ := retry.OneTime(time.Millisecond)
	ct, err := counter.New(c, "/c", counter.WithRetryPolicy(once),
		counter.WithPromotedLock(counter.PromotedLock{Path: "/c-lock", RetryPolicy: once, Timeout: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	if ct.Path() != "/c" {
		t.Errorf("Path = %q", ct.Path())
	}
	ctx := context.Background()
	if _, err := ct.Increment(ctx); !errors.Is(err, zkrecipes.ErrNotStarted) {
		t.Errorf("Increment before the client started: %v", err)
	}
	if err := ct.ForceSet(ctx, 1); !errors.Is(err, zkrecipes.ErrNotStarted) || errors.Is(err, counter.ErrMaybeApplied) {
		t.Errorf("ForceSet before the client started: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"Get":           second(ct.Get(ctx)),
		"Increment":     second(ct.Increment(ctx)),
		"CompareAndSet": second(ct.CompareAndSet(ctx, 0, 1)),
		"TrySet":        second(ct.TrySet(ctx, 1)),
		"ForceSet":      ct.ForceSet(ctx, 1),
		"Initialize":    second(ct.Initialize(ctx, 1)),
	} {
		if !errors.Is(err, zkrecipes.ErrClosed) || errors.Is(err, counter.ErrMaybeApplied) {
			t.Errorf("%s after the client closed: %v, want ErrClosed (and no maybe)", what, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestMaybeAppliedUnwrap: a MaybeAppliedError never looks retryable, and
// unwraps to its cause otherwise.
func TestMaybeAppliedUnwrap(t *testing.T) {
	conn := &counter.MaybeAppliedError{Path: "/c", Version: 4, Value: 7, Err: fmt.Errorf("set: %w", errConnClosed)}
	if !errors.Is(conn, counter.ErrMaybeApplied) || retry.IsRetryable(conn) || errors.Is(conn, errConnClosed) {
		t.Errorf("connection loss: is maybe %v, retryable %v, unwraps to the cause %v",
			errors.Is(conn, counter.ErrMaybeApplied), retry.IsRetryable(conn), errors.Is(conn, errConnClosed))
	}
	ctxErr := &counter.MaybeAppliedError{Path: "/c", Err: context.DeadlineExceeded}
	if !errors.Is(ctxErr, counter.ErrMaybeApplied) || !errors.Is(ctxErr, context.DeadlineExceeded) || retry.IsRetryable(ctxErr) {
		t.Errorf("ctx ended: %v", ctxErr)
	}
	closed := &counter.MaybeAppliedError{Path: "/c", Err: zkrecipes.ErrClosed}
	if !errors.Is(closed, zkrecipes.ErrClosed) || retry.IsRetryable(closed) {
		t.Errorf("closed: %v", closed)
	}
	var bad error = &counter.BadDataError{Path: "/c", Data: []byte("foo")}
	if !errors.Is(bad, counter.ErrBadData) || bad.Error() == "" {
		t.Errorf("bad data: %v", bad)
	}
}

var errConnClosed = zk.ErrConnectionClosed
