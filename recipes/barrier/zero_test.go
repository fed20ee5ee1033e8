package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
)

// TestZeroBarrier: every method of a zero or nil Barrier answers without a
// panic or a wait: an error wrapping ErrInvalidArgument, or a zero value.
func TestZeroBarrier(t *testing.T) {
	ctx := context.Background()
	for name, b := range map[string]*barrier.Barrier{"zero": {}, "nil": nil} {
		invalid := func(method string, err error) error {
			if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
				return fmt.Errorf("%s.%s: %v, want ErrInvalidArgument", name, method, err)
			}
			return nil
		}
		checks := map[string]func() error{
			"Set":    func() error { return invalid("Set", b.Set(ctx)) },
			"Remove": func() error { return invalid("Remove", b.Remove(ctx)) },
			"Wait":   func() error { return invalid("Wait", b.Wait(ctx)) },
			"Close":  func() error { return invalid("Close", b.Close()) },
			"Path": func() error {
				if p := b.Path(); p != "" {
					return fmt.Errorf("%s.Path: %q", name, p)
				}
				return nil
			},
		}
		var covered []string
		for m, check := range checks {
			covered = append(covered, m)
			zerocheck.Call(t, name+"."+m, check)
		}
		zerocheck.RequireCovered(t, reflect.TypeOf(b), covered)
	}
}

// TestZeroDouble: every method of a zero or nil Double answers without a
// panic or a wait: an error wrapping ErrInvalidArgument, or a zero value.
func TestZeroDouble(t *testing.T) {
	ctx := context.Background()
	for name, d := range map[string]*barrier.Double{"zero": {}, "nil": nil} {
		invalid := func(method string, err error) error {
			if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
				return fmt.Errorf("%s.%s: %v, want ErrInvalidArgument", name, method, err)
			}
			return nil
		}
		checks := map[string]func() error{
			"Enter": func() error { return invalid("Enter", d.Enter(ctx)) },
			"Leave": func() error { return invalid("Leave", d.Leave(ctx)) },
			"Close": func() error { return invalid("Close", d.Close(ctx)) },
			"Getters": func() error {
				if d.Path() != "" || d.Members() != 0 || d.Node() != "" || d.Round() != 0 {
					return fmt.Errorf("%s: a getter is not zero", name)
				}
				return nil
			},
		}
		var covered []string
		for m, check := range checks {
			covered = append(covered, m)
			zerocheck.Call(t, name+"."+m, check)
		}
		zerocheck.RequireCovered(t, reflect.TypeOf(d), append(covered, "Path", "Members", "Node", "Round"))
	}
}
