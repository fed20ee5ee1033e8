package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/zerocheck"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestZeroRWMutex calls every exported method of a zero RWMutex and of its
// two sides: each returns an error wrapping ErrInvalidArgument, or the
// documented zero result for a getter, and none panics or blocks. No server
// is involved.
func TestZeroRWMutex(t *testing.T) {
	var rw rwlock.RWMutex
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	invalid := func(method string, err error) error {
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
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
		zerocheck.Call(t, "zero RWMutex."+name, check)
	}

	// The sides: whatever ReadLock and WriteLock return (a zero Mutex, as
	// documented, or nil) must behave as a zero Mutex.
	sides := map[string]func() *mutex.Mutex{"ReadLock": rw.ReadLock, "WriteLock": rw.WriteLock}
	for name, get := range sides {
		covered = append(covered, name)
		var side *mutex.Mutex
		zerocheck.Call(t, "zero RWMutex."+name, func() error { side = get(); return nil })
		zerocheck.RequireCovered(t, reflect.TypeOf(side), zerocheck.Mutex(t, "zero RWMutex."+name+"()", side))
	}
	zerocheck.RequireCovered(t, reflect.TypeOf(&rw), covered)
}
