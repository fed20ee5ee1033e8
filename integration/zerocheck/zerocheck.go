// Package zerocheck is a test helper: it calls every method of a zero value
// and fails the test if one panics, blocks or answers without the typed
// error the bar asks for. The tests of client and of recipes/barrier,
// cache, counter, mutex, node and rwlock share it. It lives under
// integration, beside the other test helpers, because it is no library
// code: it inspects the module's own types with reflect and imports
// recipes/mutex, and no library package may import it.
package zerocheck

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// Mutex runs a check of every method on m, a handle that was never made by New,
// and returns the names of the methods it called.
func Mutex(t *testing.T, what string, m *mutex.Mutex) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	invalid := func(method string, err error) error {
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			return fmt.Errorf("%s.%s: err = %v, want one wrapping ErrInvalidArgument", what, method, err)
		}
		return nil
	}
	checks := map[string]func() error{
		"Lock":    func() error { return invalid("Lock", m.Lock(ctx)) },
		"TryLock": func() error { return invalid("TryLock", m.TryLock(ctx)) },
		"Unlock":  func() error { return invalid("Unlock", m.Unlock(ctx)) },
		"Token": func() error {
			tok, err := m.Token(ctx)
			if err == nil {
				return fmt.Errorf("%s.Token: %d with a nil error", what, tok)
			}
			return invalid("Token", err)
		},
		"OwnerCheck": func() error {
			op, err := m.OwnerCheck()
			if op != nil {
				return fmt.Errorf("%s.OwnerCheck: an op %+v", what, op)
			}
			return invalid("OwnerCheck", err)
		},
		"Participants": func() error {
			ps, err := m.Participants(ctx)
			if len(ps) != 0 {
				return fmt.Errorf("%s.Participants: %v", what, ps)
			}
			return invalid("Participants", err)
		},
		"Context": func() error {
			hctx, hcancel := m.Context(ctx)
			if hcancel == nil {
				return fmt.Errorf("%s.Context: nil cancel func", what)
			}
			defer hcancel()
			if hctx == nil {
				return fmt.Errorf("%s.Context: nil context", what)
			}
			select {
			case <-hctx.Done():
			default:
				return fmt.Errorf("%s.Context: not cancelled", what)
			}
			if cause := context.Cause(hctx); !errors.Is(cause, zkrecipes.ErrInvalidArgument) && !errors.Is(cause, zkrecipes.ErrNotHeld) {
				return fmt.Errorf("%s.Context: cause %v, want ErrInvalidArgument or ErrNotHeld", what, cause)
			}
			// A Lock with it must not reenter anything.
			return invalid("Lock(Context)", m.Lock(hctx))
		},
		"Lost": func() error {
			select {
			case <-m.Lost():
				return nil
			default:
				return fmt.Errorf("%s.Lost: channel not closed", what)
			}
		},
		"IsHeld": func() error {
			if m.IsHeld() {
				return fmt.Errorf("%s.IsHeld: true", what)
			}
			return nil
		},
		"Node": func() error {
			if n := m.Node(); n != "" {
				return fmt.Errorf("%s.Node: %q", what, n)
			}
			return nil
		},
		"Path": func() error {
			if p := m.Path(); p != "" {
				return fmt.Errorf("%s.Path: %q", what, p)
			}
			return nil
		},
	}
	var names []string
	for name, check := range checks {
		names = append(names, name)
		Call(t, what+"."+name, check)
	}
	return names
}

// Call runs check on its own goroutine and fails the test if it panics,
// reports an error, or does not return within 10s.
func Call(t *testing.T, what string, check func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("%s panicked: %v", what, r)
			}
		}()
		done <- check()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("%s did not return within 10s", what)
	}
}

// RequireCovered fails for every exported method of typ not in covered,
// so that a method added later gets its zero-value check.
func RequireCovered(t *testing.T, typ reflect.Type, covered []string) {
	t.Helper()
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !slices.Contains(covered, name) {
			t.Errorf("%v.%s has no zero-value check", typ, name)
		}
	}
}
