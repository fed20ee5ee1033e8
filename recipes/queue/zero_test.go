package queue_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

func noHandler(context.Context, *queue.Item) error { return nil }

// invalid checks that err wraps zkrecipes.ErrInvalidArgument.
func invalid(what string, err error) error {
	if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		return fmt.Errorf("%s: %v, want ErrInvalidArgument", what, err)
	}
	return nil
}

// closedEvents checks that an Events channel of a zero handle is closed.
func closedEvents(what string, ch <-chan queue.Event, cancel func()) error {
	cancel()
	if _, ok := <-ch; ok {
		return fmt.Errorf("%s.Events: an event", what)
	}
	return nil
}

// run calls every check, and requires every method of typ covered.
func run(t *testing.T, typ reflect.Type, checks map[string]func() error) {
	var covered []string
	for m, check := range checks {
		covered = append(covered, m)
		zerocheck.Call(t, typ.String()+"."+m, check)
	}
	zerocheck.RequireCovered(t, typ, covered)
}

// TestZeroHandles: every method of a zero or nil handle of each kind
// answers at once with an error wrapping ErrInvalidArgument (a getter with
// its zero value), never a panic.
func TestZeroHandles(t *testing.T) {
	ctx := context.Background()
	for _, q := range []*queue.Queue{{}, nil} {
		run(t, reflect.TypeOf(q), map[string]func() error{
			"Put":      func() error { return invalid("Put", q.Put(ctx, nil)) },
			"PutMulti": func() error { return invalid("PutMulti", q.PutMulti(ctx, nil)) },
			"Consume":  func() error { return invalid("Consume", q.Consume(ctx, noHandler)) },
			"Len":      func() error { _, err := q.Len(ctx); return invalid("Len", err) },
			"Info":     func() error { _, err := q.Info(ctx); return invalid("Info", err) },
			"Close":    func() error { return invalid("Close", q.Close(ctx)) },
			"Path":     func() error { return zeroPath(q.Path()) },
			"Events":   func() error { ch, cancel := q.Events(); return closedEvents("Queue", ch, cancel) },
		})
	}
	for _, q := range []*queue.IDQueue{{}, nil} {
		run(t, reflect.TypeOf(q), map[string]func() error{
			"Put":      func() error { return invalid("Put", q.Put(ctx, "id", nil)) },
			"Remove":   func() error { _, err := q.Remove(ctx, "id"); return invalid("Remove", err) },
			"Contains": func() error { _, err := q.Contains(ctx, "id"); return invalid("Contains", err) },
			"Consume":  func() error { return invalid("Consume", q.Consume(ctx, noHandler)) },
			"Len":      func() error { _, err := q.Len(ctx); return invalid("Len", err) },
			"Info":     func() error { _, err := q.Info(ctx); return invalid("Info", err) },
			"Close":    func() error { return invalid("Close", q.Close(ctx)) },
			"Path":     func() error { return zeroPath(q.Path()) },
			"Events":   func() error { ch, cancel := q.Events(); return closedEvents("IDQueue", ch, cancel) },
		})
	}
	for _, q := range []*queue.PriorityQueue{{}, nil} {
		run(t, reflect.TypeOf(q), map[string]func() error{
			"Put":      func() error { return invalid("Put", q.Put(ctx, 1, nil)) },
			"PutMulti": func() error { return invalid("PutMulti", q.PutMulti(ctx, 1, nil)) },
			"Consume":  func() error { return invalid("Consume", q.Consume(ctx, noHandler)) },
			"Len":      func() error { _, err := q.Len(ctx); return invalid("Len", err) },
			"Info":     func() error { _, err := q.Info(ctx); return invalid("Info", err) },
			"Close":    func() error { return invalid("Close", q.Close(ctx)) },
			"Path":     func() error { return zeroPath(q.Path()) },
			"Events":   func() error { ch, cancel := q.Events(); return closedEvents("PriorityQueue", ch, cancel) },
		})
	}
	for _, q := range []*queue.DelayQueue{{}, nil} {
		run(t, reflect.TypeOf(q), map[string]func() error{
			"Put":      func() error { return invalid("Put", q.Put(ctx, time.Second, nil)) },
			"PutAt":    func() error { return invalid("PutAt", q.PutAt(ctx, time.Now(), nil)) },
			"PutMulti": func() error { return invalid("PutMulti", q.PutMulti(ctx, 0, nil)) },
			"Consume":  func() error { return invalid("Consume", q.Consume(ctx, noHandler)) },
			"Len":      func() error { _, err := q.Len(ctx); return invalid("Len", err) },
			"Info":     func() error { _, err := q.Info(ctx); return invalid("Info", err) },
			"Close":    func() error { return invalid("Close", q.Close(ctx)) },
			"Path":     func() error { return zeroPath(q.Path()) },
			"Events":   func() error { ch, cancel := q.Events(); return closedEvents("DelayQueue", ch, cancel) },
		})
	}
	for _, q := range []*queue.Simple{{}, nil} {
		run(t, reflect.TypeOf(q), map[string]func() error{
			"Offer":  func() error { return invalid("Offer", q.Offer(ctx, nil)) },
			"Take":   func() error { _, err := q.Take(ctx); return invalid("Take", err) },
			"Poll":   func() error { _, err := q.Poll(ctx); return invalid("Poll", err) },
			"Peek":   func() error { _, err := q.Peek(ctx); return invalid("Peek", err) },
			"Len":    func() error { _, err := q.Len(ctx); return invalid("Len", err) },
			"Info":   func() error { _, err := q.Info(ctx); return invalid("Info", err) },
			"Close":  func() error { return invalid("Close", q.Close(ctx)) },
			"Path":   func() error { return zeroPath(q.Path()) },
			"Events": func() error { ch, cancel := q.Events(); return closedEvents("Simple", ch, cancel) },
		})
	}
	for _, it := range []*queue.Item{{}, nil} {
		run(t, reflect.TypeOf(it), map[string]func() error{
			"CommitWith": func() error { return invalid("CommitWith", it.CommitWith()) },
		})
	}
}

func zeroPath(p string) error {
	if p != "" {
		return fmt.Errorf("Path of a zero handle: %q", p)
	}
	return nil
}
