package election_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// TestZeroLatch calls every method of a zero Latch: those that return an
// error return one wrapping ErrInvalidArgument; getters return zero
// values; none panics or blocks. No server is involved.
func TestZeroLatch(t *testing.T) {
	ctx := context.Background()
	for _, l := range []*election.Latch{{}, nil} {
		if err := l.Start(ctx); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("Start: %v", err)
		}
		if _, err := l.Await(ctx); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("Await: %v", err)
		}
		if err := l.Close(ctx); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("Close: %v", err)
		}
		if l.Leading() || l.Term() != nil || l.Terms() != nil || l.Node() != "" || l.Path() != "" || l.ID() != "" {
			t.Errorf("getters of a zero latch are not zero")
		}
	}
	for _, term := range []*election.Term{nil, {}} {
		if term.Node() != "" || term.Token() != 0 || term.Session() != nil || term.ID() != "" {
			t.Errorf("getters of a nil or zero term are not zero")
		}
		if term.Context().Err() == nil || !errors.Is(term.Err(), zkrecipes.ErrInvalidArgument) {
			t.Errorf("a nil or zero term's context is not cancelled")
		}
		select {
		case <-term.Done():
		default:
			t.Errorf("a nil or zero term's Done is open")
		}
		term.Interrupt() // no panic
	}
}

// TestBadInput: nil client, bad paths, nil lead, nil option and nil
// context fail at once with typed errors, before any I/O.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	lead := func(context.Context, *election.Term) error { return nil }
	c, err := client.New(client.WithServers("127.0.0.1:1")) // never started: no I/O expected
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := election.NewLatch(nil, "/a"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewLatch(nil client): %v", err)
	}
	for _, p := range []string{"", "a/b", "relative", "/", "/a/", "/a/../b", "/zookeeper/x"} {
		if _, err := election.NewLatch(c, p); !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("NewLatch(%q): %v", p, err)
		}
		if err := election.Run(ctx, c, p, lead); !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("Run(%q): %v", p, err)
		}
		if _, err := election.Leader(ctx, c, p); !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("Leader(%q): %v", p, err)
		}
		if _, err := election.Participants(ctx, c, p); !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("Participants(%q): %v", p, err)
		}
		if _, err := election.Observe(ctx, c, p); !errors.Is(err, zkrecipes.ErrInvalidPath) {
			t.Errorf("Observe(%q): %v", p, err)
		}
	}
	if _, err := election.NewLatch(c, "/a", nil); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewLatch(nil option): %v", err)
	}
	if _, err := election.NewLatch(c, "/a", election.WithCloseMode(election.CloseMode(7))); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewLatch(unknown close mode): %v", err)
	}
	if _, err := election.NewLatch(c, "/a", election.WithListener(nil, nil)); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("NewLatch(empty listener): %v", err)
	}
	if err := election.Run(ctx, c, "/a", lead, election.WithListener(nil, nil)); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("Run(empty listener): %v", err)
	}
	if err := election.Run(ctx, nil, "/a", lead); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("Run(nil client): %v", err)
	}
	if err := election.Run(ctx, c, "/a", nil); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("Run(nil lead): %v", err)
	}
	//lint:ignore SA1012 a nil context is the bad input under test
	if err := election.Run(nil, c, "/a", lead); !errors.Is(err, zkrecipes.ErrInvalidArgument) { //nolint:staticcheck
		t.Errorf("Run(nil ctx): %v", err)
	}
	if _, err := election.Leader(ctx, nil, "/a"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("Leader(nil client): %v", err)
	}
	if _, err := election.Observe(ctx, nil, "/a"); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
		t.Errorf("Observe(nil client): %v", err)
	}
}

// TestZeroTermProclaim: Proclaim on a nil or zero Term is an error
// wrapping ErrInvalidArgument, never a panic. No server.
func TestZeroTermProclaim(t *testing.T) {
	var nilTerm *election.Term
	for _, term := range []*election.Term{nilTerm, {}} {
		if err := term.Proclaim(context.Background(), []byte("x")); !errors.Is(err, zkrecipes.ErrInvalidArgument) {
			t.Errorf("Proclaim on %#v: %v", term, err)
		}
	}
}
