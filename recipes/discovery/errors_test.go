package discovery_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// TestLifecycleErrors: a provider or a service cache that is not started,
// or closed, and a closed Discovery, say which ("service provider is not
// started", "service cache is closed", "service discovery is closed"), not
// that the client is, and their errors still match ErrNotStarted and
// ErrClosed. No server: the client is never started.
func TestLifecycleErrors(t *testing.T) {
	ctx := context.Background()
	c, err := client.New(client.WithServers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := discovery.New(c, "/services")
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.NewProvider("api")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.GetInstance()
	wantErr(t, "GetInstance before Start", err, zkrecipes.ErrNotStarted, "zkrecipes: service provider is not started")
	_, err = p.GetAllInstances()
	wantErr(t, "GetAllInstances before Start", err, zkrecipes.ErrNotStarted, "zkrecipes: service provider is not started")
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = p.GetInstance()
	wantErr(t, "GetInstance after Close", err, zkrecipes.ErrClosed, "zkrecipes: service provider is closed")
	wantErr(t, "provider Start after Close", p.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: service provider is closed")

	ch, err := d.NewCache("api")
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ch.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	wantErr(t, "cache Start after Close", ch.Start(ctx), zkrecipes.ErrClosed, "zkrecipes: service cache is closed")
	events, cancel := ch.Events()
	defer cancel()
	select {
	case _, ok := <-events:
		if ok {
			t.Error("cache Events after Close: an event")
		}
	default:
		t.Error("cache Events after Close: an open channel")
	}

	if err := d.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = d.NewCache("api")
	wantErr(t, "NewCache after Close", err, zkrecipes.ErrClosed, "zkrecipes: service discovery is closed")
	_, err = d.NewProvider("api")
	wantErr(t, "NewProvider after Close", err, zkrecipes.ErrClosed, "zkrecipes: service discovery is closed")
	inst := discovery.NewInstance("api")
	inst.ID = "a1"
	wantErr(t, "Register after Close", d.Register(ctx, inst), zkrecipes.ErrClosed, "zkrecipes: service discovery is closed")
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
