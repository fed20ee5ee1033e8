package faultlink

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// sessionTimeout is long, so that a session that ends within the test
// ended because ExpireSession ended it, not because it timed out.
const sessionTimeout = 40 * time.Second

// linkZKClient starts a client on addr with its connections through link,
// and stops it at cleanup.
func linkZKClient(t *testing.T, ctx context.Context, addr string, link *Link) (*client.Client, <-chan client.StateChange) {
	t.Helper()
	opts := []client.Option{client.WithServers(addr), client.WithSessionTimeout(sessionTimeout),
		client.WithLogger(slog.New(slog.DiscardHandler))}
	if link != nil {
		opts = append(opts, client.WithDialer(link.Dial))
	}
	c, err := client.New(opts...)
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	states, stop := c.Subscribe()
	t.Cleanup(func() {
		stop()
		_ = c.Close()
	})
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	linkZKWaitState(t, states, client.StateConnected, 30*time.Second)
	return c, states
}

// TestExpireSession ends a live client's session through its link: the
// server deletes the session's ephemeral node before ExpireSession returns,
// and the client learns of the loss and gets a new session, well within its
// session timeout (the waits below are shorter than it).
func TestExpireSession(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	addr := linkZKStart(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	link := New()
	defer link.Close()
	if _, ok := link.SessionID(); ok {
		t.Fatal("SessionID on a new link reports a session")
	}
	if err := link.ExpireSession(ctx); !errors.Is(err, ErrNoSession) {
		t.Fatalf("ExpireSession before any session: %v, want ErrNoSession", err)
	}
	c, states := linkZKClient(t, ctx, addr, link)
	observer, _ := linkZKClient(t, ctx, addr, nil)
	old := c.Session().ID()
	if id, ok := link.SessionID(); !ok || id != old {
		t.Fatalf("SessionID() = 0x%x, %v; the client's session is 0x%x", id, ok, old)
	}
	if _, err := c.Create(ctx, "/eph", nil, zk.FlagEphemeral); err != nil {
		t.Fatalf("create /eph: %v", err)
	}

	if err := link.ExpireSession(ctx); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
	if ok, _, err := observer.Exists(ctx, "/eph"); err != nil || ok {
		t.Fatalf("exists /eph after ExpireSession: %v, %v; want the ephemeral node gone", ok, err)
	}
	linkZKWaitState(t, states, client.StateLost, sessionTimeout/2)
	linkZKWaitState(t, states, client.StateReconnected, sessionTimeout/2)
	s, err := c.WaitSession(ctx)
	if err != nil {
		t.Fatalf("WaitSession: %v", err)
	}
	if s.ID() == old {
		t.Fatalf("the client kept session 0x%x", old)
	}
	if id, _ := link.SessionID(); id != s.ID() {
		t.Fatalf("SessionID() = 0x%x after the new session 0x%x", id, s.ID())
	}
	// Expiring a session the server has ended already is no error.
	l2 := New()
	l2.noteSession(addr, old, []byte("0123456789abcdef"), 4000)
	if err := l2.ExpireSession(ctx); err != nil {
		t.Fatalf("ExpireSession of an ended session: %v", err)
	}
}

// TestExpireSessionWhileCut ends the session while the client cannot reach
// the server: the client sees the loss once the link is restored.
func TestExpireSessionWhileCut(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	addr := linkZKStart(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	link := New()
	defer link.Close()
	c, states := linkZKClient(t, ctx, addr, link)
	old := c.Session().ID()
	link.Cut()
	linkZKWaitState(t, states, client.StateSuspended, 10*time.Second)
	if err := link.ExpireSession(ctx); err != nil {
		t.Fatalf("ExpireSession while cut: %v", err)
	}
	link.Restore()
	linkZKWaitState(t, states, client.StateLost, sessionTimeout/2)
	linkZKWaitState(t, states, client.StateReconnected, sessionTimeout/2)
	if got := c.Session().ID(); got == old {
		t.Fatalf("the client kept session 0x%x", old)
	}
}

// TestExpireSessionBadInput: a zero Link has seen no session, and an ended
// ctx stops ExpireSession before it dials.
func TestExpireSessionBadInput(t *testing.T) {
	var zero Link
	if err := zero.ExpireSession(context.Background()); !errors.Is(err, ErrNoSession) {
		t.Fatalf("zero Link: %v, want ErrNoSession", err)
	}
	if _, ok := zero.SessionID(); ok {
		t.Fatal("zero Link reports a session")
	}
	l := New()
	l.noteSession("127.0.0.1:1", 1, []byte("pw"), 4000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.ExpireSession(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("ended ctx: %v, want context.Canceled", err)
	}
}
