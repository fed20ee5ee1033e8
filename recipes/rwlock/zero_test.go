package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestZeroRWMutex calls every exported method of a zero RWMutex and of its
// two sides (issue 8, point 6): each returns an error wrapping
// ErrInvalidArgument, or the documented zero result for a getter, and none
// panics or blocks. No server is involved.
func TestZeroRWMutex(t *testing.T) {
	var rw rwlock.RWMutex
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	invalid := func(method string, err error) error {
		if !errors.Is(err, rwlock.ErrInvalidArgument) {
			return fmt.Errorf("zero RWMutex.%s: err = %v, want one wrapping ErrInvalidArgument", method, err)
		}
		return nil
	}
	checks := map[string]func() error{
		"Lock":      func() error { return invalid("Lock", rw.Lock(ctx)) },
		"TryLock":   func() error { return invalid("TryLock", rw.TryLock(ctx)) },
		"Unlock":    func() error { return invalid("Unlock", rw.Unlock(ctx)) },
		"RLock":     func() error { return invalid("RLock", rw.RLock(ctx)) },
		"TryRLock":  func() error { return invalid("TryRLock", rw.TryRLock(ctx)) },
		"RUnlock":   func() error { return invalid("RUnlock", rw.RUnlock(ctx)) },
		"Downgrade": func() error { return invalid("Downgrade", rw.Downgrade(ctx)) },
		"Participants": func() error {
			ps, err := rw.Participants(ctx)
			if len(ps) != 0 {
				return fmt.Errorf("zero RWMutex.Participants: %v", ps)
			}
			return invalid("Participants", err)
		},
		"Path": func() error {
			if p := rw.Path(); p != "" {
				return fmt.Errorf("zero RWMutex.Path: %q", p)
			}
			return nil
		},
	}
	var covered []string
	for name, check := range checks {
		covered = append(covered, name)
		zeroCall(t, "zero RWMutex."+name, check)
	}

	// The sides: whatever ReadLock and WriteLock return (a zero Mutex, as
	// documented, or nil) must behave as a zero Mutex.
	sides := map[string]func() *mutex.Mutex{"ReadLock": rw.ReadLock, "WriteLock": rw.WriteLock}
	for name, get := range sides {
		covered = append(covered, name)
		var side *mutex.Mutex
		zeroCall(t, "zero RWMutex."+name, func() error { side = get(); return nil })
		zeroRequireCovered(t, reflect.TypeOf(side), zeroCheckSide(t, "zero RWMutex."+name+"()", side))
	}
	zeroRequireCovered(t, reflect.TypeOf(&rw), covered)
}

// zeroCheckSide runs the zero-value checks of a mutex.Mutex on side and
// returns the names of the methods it called.
func zeroCheckSide(t *testing.T, what string, m *mutex.Mutex) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	invalid := func(method string, err error) error {
		if !errors.Is(err, rwlock.ErrInvalidArgument) {
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
			if hctx == nil || hcancel == nil {
				return fmt.Errorf("%s.Context: nil context or cancel func", what)
			}
			defer hcancel()
			select {
			case <-hctx.Done():
			default:
				return fmt.Errorf("%s.Context: not cancelled", what)
			}
			return nil
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
		zeroCall(t, what+"."+name, check)
	}
	return names
}

// zeroCall runs check on its own goroutine and fails the test if it panics,
// reports an error, or does not return within 10s.
func zeroCall(t *testing.T, what string, check func() error) {
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

// zeroRequireCovered fails for every exported method of typ not in covered,
// so that a method added later gets its zero-value check.
func zeroRequireCovered(t *testing.T, typ reflect.Type, covered []string) {
	t.Helper()
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !slices.Contains(covered, name) {
			t.Errorf("%v.%s has no zero-value check", typ, name)
		}
	}
}
