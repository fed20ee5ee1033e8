package cache_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/cache"
)

// zeroChecks calls every method of c, a Cache not made by New, and
// requires the answer of a zero value: ErrInvalidArgument from the methods
// that return an error, a closed channel from Events, nothing from the
// others, and no panic.
func zeroChecks(ctx context.Context, what string, c *cache.Cache) map[string]func() error {
	invalid := func(method string, err error) error {
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			return fmt.Errorf("%s.%s: %v, want ErrInvalidArgument", what, method, err)
		}
		return nil
	}
	return map[string]func() error{
		"Path":  func() error { return nonEmpty(what+".Path", c.Path()) },
		"Start": func() error { return invalid("Start", c.Start(ctx)) },
		"Initialized": func() error {
			if c.Initialized() != nil {
				return fmt.Errorf("%s.Initialized: a channel", what)
			}
			return nil
		},
		"Get": func() error {
			if n, ok := c.Get("/x"); ok || n.Path != "" {
				return fmt.Errorf("%s.Get: %+v %v", what, n, ok)
			}
			return nil
		},
		"Children": func() error { return nonEmpty(what+".Children", c.Children("/x")) },
		"Nodes":    func() error { return nonEmpty(what+".Nodes", c.Nodes()) },
		"Len":      func() error { return nonEmpty(what+".Len", c.Len()) },
		"Events": func() error {
			ch, cancel := c.Events()
			cancel()
			cancel()
			if _, ok := <-ch; ok {
				return fmt.Errorf("%s.Events: an open channel", what)
			}
			return nil
		},
		"Close": func() error { return invalid("Close", c.Close(ctx)) },
	}
}

// nonEmpty is an error when v is not its type's zero (or an empty slice).
func nonEmpty(what string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.IsValid() && !rv.IsZero() && !(rv.Kind() == reflect.Slice && rv.Len() == 0) {
		return fmt.Errorf("%s: %v", what, v)
	}
	return nil
}

// TestZeroCache: every method of a zero Cache and of a nil *Cache answers
// as a zero value must (see zeroChecks) and none panics or blocks. No
// server.
func TestZeroCache(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // Start must not need it
	defer cancel()
	var names []string
	for what, c := range map[string]*cache.Cache{"zero Cache": {}, "nil *Cache": nil} {
		names = names[:0]
		for name, check := range zeroChecks(ctx, what, c) {
			names = append(names, name)
			zerocheck.Call(t, what+"."+name, check)
		}
	}
	zerocheck.RequireCovered(t, reflect.TypeOf(&cache.Cache{}), names)
}

// TestNewArguments: bad arguments are refused by New, before any I/O, with
// typed errors.
func TestNewArguments(t *testing.T) {
	if _, err := cache.New(nil, "/c"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("nil client: %v", err)
	}
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range []string{"", "c", "/c/", "/a//b", "/a/./b", "/zookeeper/x", "/a\x00b"} {
		_, err := cache.New(c, p)
		var pe *client.PathError
		if !errors.Is(err, zkrecipes.ErrInvalidPath) || !errors.As(err, &pe) {
			t.Errorf("path %q: %v", p, err)
		}
	}
	bad := map[string]cache.Option{
		"nil option":   nil,
		"depth 0":      cache.WithDepth(0),
		"depth -1":     cache.WithDepth(-1),
		"nil filter":   cache.WithFilter(nil),
		"depth -1<<40": cache.WithDepth(-1 << 40),
	}
	for what, opt := range bad {
		if ch, err := cache.New(c, "/c", cache.WithoutData(), opt); !errors.Is(err, zkrecipes.ErrInvalidArgument) || ch != nil {
			t.Errorf("%s: %v, %v", what, ch, err)
		}
	}
}

// TestLifecycleErrors: a Start whose ctx ends before the first load (no
// server: the client is never started) returns ctx's error, naming the
// cache; a second Start, and every call after Close, answers with its typed
// error, which says that the cache (not the client) is started already or
// closed.
func TestLifecycleErrors(t *testing.T) {
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ch, err := cache.New(c, "/c", cache.WithDepth(2))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Path() != "/c" {
		t.Errorf("Path: %q", ch.Path())
	}
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	wantErr(t, "Start without a session", ch.Start(short), context.DeadlineExceeded, "zkrecipes: start cache /c")
	if isClosed(ch.Initialized()) {
		t.Error("Initialized closed without a load")
	}
	wantErr(t, "second Start", ch.Start(ctx), zkrecipes.ErrAlreadyStarted, "zkrecipes: cache is already started")
	if err := ch.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := ch.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	wantErr(t, "Start after Close", ch.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: cache is closed")
	events, cancelEvents := ch.Events()
	defer cancelEvents()
	if _, ok := <-events; ok {
		t.Error("Events after Close: an open channel")
	}
	if ch.Len() != 0 || len(ch.Nodes()) != 0 {
		t.Error("a closed cache has nodes")
	}
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
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
