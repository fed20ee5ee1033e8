package queue_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// TestAttemptOptionsRefuseBadInput: zero or negative attempts, a bad
// backoff, a dead-letter path that is invalid or overlaps the queue's
// other paths, and these options without a lock path or in Delete mode are
// typed errors from the constructors, before any I/O.
func TestAttemptOptionsRefuseBadInput(t *testing.T) {
	c := newClient(t)
	lock := queue.WithLockPath("/q-locks")
	badArg := map[string][]queue.Option{
		"zero attempts":            {lock, queue.WithMaxAttempts(0)},
		"negative attempts":        {lock, queue.WithMaxAttempts(-2)},
		"zero backoff":             {lock, queue.WithRequeueBackoff(0, time.Second)},
		"negative backoff":         {lock, queue.WithRequeueBackoff(-time.Millisecond, time.Second)},
		"max backoff below first":  {lock, queue.WithRequeueBackoff(time.Second, time.Millisecond)},
		"attempts without lock":    {queue.WithMaxAttempts(3)},
		"dead letter without lock": {queue.WithDeadLetterPath("/dead")},
		"backoff without lock":     {queue.WithRequeueBackoff(time.Millisecond, time.Second)},
		"attempts in Delete mode":  {lock, queue.WithErrorMode(queue.Delete), queue.WithMaxAttempts(3)},
		"dead letter, Delete mode": {lock, queue.WithErrorMode(queue.Delete), queue.WithDeadLetterPath("/dead")},
	}
	badPath := map[string][]queue.Option{
		"empty dead letter":           {lock, queue.WithDeadLetterPath("")},
		"relative dead letter":        {lock, queue.WithDeadLetterPath("dead")},
		"root dead letter":            {lock, queue.WithDeadLetterPath("/")},
		"dead letter with a slash":    {lock, queue.WithDeadLetterPath("/dead/")},
		"dead letter = queue":         {lock, queue.WithDeadLetterPath("/q")},
		"dead letter under the queue": {lock, queue.WithDeadLetterPath("/q/dead")},
		"dead letter above the queue": {queue.WithLockPath("/l"), queue.WithDeadLetterPath("/q0"), queue.WithConsumerPath("/c")},
		"dead letter = lock path":     {lock, queue.WithDeadLetterPath("/q-locks")},
		"dead letter under locks":     {lock, queue.WithDeadLetterPath("/q-locks/dead")},
		"dead letter = consumers":     {lock, queue.WithDeadLetterPath("/q-consumers")},
		"dead letter above consumers": {lock, queue.WithConsumerPath("/c/q"), queue.WithDeadLetterPath("/c")},
	}
	for what, opts := range badArg {
		if _, err := queue.New(c, "/q", opts...); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	for what, opts := range badPath {
		path := "/q"
		if what == "dead letter above the queue" {
			path = "/q0/q"
		}
		var pe *client.PathError
		if _, err := queue.New(c, path, opts...); !errors.As(err, &pe) || !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("%s: %v, want a *client.PathError", what, err)
		}
	}
	if _, err := queue.NewSimple(c, "/s", queue.WithMaxAttempts(3)); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewSimple with max attempts: %v", err)
	}
	for name, newQ := range map[string]func(...queue.Option) error{
		"New":         func(o ...queue.Option) error { _, err := queue.New(c, "/q", o...); return err },
		"NewID":       func(o ...queue.Option) error { _, err := queue.NewID(c, "/q", o...); return err },
		"NewPriority": func(o ...queue.Option) error { _, err := queue.NewPriority(c, "/q", o...); return err },
		"NewDelay":    func(o ...queue.Option) error { _, err := queue.NewDelay(c, "/q", o...); return err },
	} {
		if err := newQ(lock, queue.WithMaxAttempts(1), queue.WithDeadLetterPath("/q-dead"),
			queue.WithRequeueBackoff(time.Millisecond, time.Millisecond)); err != nil {
			t.Errorf("%s with every attempt option: %v", name, err)
		}
		if err := newQ(lock, queue.WithDeadLetterPath("/dead")); err != nil {
			t.Errorf("%s with a dead-letter path alone: %v", name, err)
		}
	}
}

// TestErrLostIsALostHolding: queue.ErrLost is a zkrecipes.ErrLost, with a
// message of its own.
func TestErrLostIsALostHolding(t *testing.T) {
	if !errors.Is(queue.ErrLost, zkrecipes.ErrLost) {
		t.Error("queue.ErrLost does not match zkrecipes.ErrLost")
	}
	if queue.ErrLost.Error() != "zkrecipes: queue item's lock was lost" {
		t.Errorf("message %q", queue.ErrLost)
	}
}
