package mutex_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// TestZeroMulti: every method of a zero Multi returns an error wrapping
// ErrInvalidArgument (or its zero result) and none panics. No server.
func TestZeroMulti(t *testing.T) {
	var m mutex.Multi
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	check("Lock", m.Lock(ctx))
	check("TryLock", m.TryLock(ctx))
	check("Unlock", m.Unlock(ctx))
	_, err := m.Token(ctx, "/a")
	check("Token", err)
	_, err = m.Tokens(ctx)
	check("Tokens", err)
	if m.IsHeld() || m.Paths() != nil || m.Locks() != nil {
		t.Error("a zero Multi reports a holding, paths or locks")
	}
	select {
	case <-m.Lost():
	default:
		t.Error("Lost of a zero Multi is open")
	}
	var nilMulti *mutex.Multi
	check("nil Lock", nilMulti.Lock(ctx))
}

// TestNewMultiArguments: bad input is refused before any I/O: no client,
// no paths, a path twice, a bad path, a nil option; for NewMultiOf no
// locks, a nil lock, a zero or nil *Mutex, two locks on one path.
func TestNewMultiArguments(t *testing.T) {
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	invalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", what, err)
		}
	}
	_, err = mutex.NewMulti(nil, []string{"/a"})
	invalid("nil client", err)
	_, err = mutex.NewMulti(c, nil)
	invalid("no paths", err)
	_, err = mutex.NewMulti(c, []string{})
	invalid("empty paths", err)
	_, err = mutex.NewMulti(c, []string{"/a", "/b", "/a"})
	invalid("duplicate path", err)
	_, err = mutex.NewMulti(c, []string{"/a"}, nil)
	invalid("nil option", err)
	var pe *client.PathError
	if _, err := mutex.NewMulti(c, []string{"/a", "b/"}); !errors.As(err, &pe) || !errors.Is(err, zkrecipes.ErrInvalidPath) {
		t.Errorf("bad path: %v", err)
	}

	_, err = mutex.NewMultiOf()
	invalid("no locks", err)
	a, _ := mutex.New(c, "/a")
	_, err = mutex.NewMultiOf(a, nil)
	invalid("nil lock", err)
	var nilMutex *mutex.Mutex
	_, err = mutex.NewMultiOf(a, nilMutex)
	invalid("nil *Mutex", err)
	_, err = mutex.NewMultiOf(a, &mutex.Mutex{})
	invalid("zero Mutex", err)
	a2, _ := mutex.New(c, "/a")
	_, err = mutex.NewMultiOf(a, a2)
	invalid("two locks on one path", err)

	// The canonical order: by path, whatever the order given.
	m, err := mutex.NewMulti(c, []string{"/z", "/a/b", "/a", "/m"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/a", "/a/b", "/m", "/z"}
	got := m.Paths()
	for i := range want {
		if len(got) != len(want) || got[i] != want[i] {
			t.Fatalf("Paths = %v, want %v", got, want)
		}
	}
	for i, l := range m.Locks() {
		if l.Path() != want[i] {
			t.Errorf("Locks()[%d] is on %s, want %s", i, l.Path(), want[i])
		}
	}
	if err := m.Unlock(context.Background()); !errors.Is(err, zkrecipes.ErrNotHeld) {
		t.Errorf("Unlock before Lock: %v", err)
	}
	if _, err := m.Token(context.Background(), "/a"); !errors.Is(err, zkrecipes.ErrNotHeld) {
		t.Errorf("Token before Lock: %v", err)
	}
	if _, err := m.Token(context.Background(), "/nope"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("Token of another path: %v", err)
	}
}
