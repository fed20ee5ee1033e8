package zktest_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// A server, a client and three faults: the server stops and comes back (the
// client keeps its session), then the session is expired (the client gets a
// new one, and its ephemeral node is gone). In a test, zktest.ForTest(t)
// replaces Start and the deferred Close.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	zkc, err := zktest.Start(ctx, zktest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	defer zkc.Close()

	link := faultlink.New() // the client's connections go through it
	defer link.Close()
	c, err := client.New(client.WithServers(zkc.Addrs()...), client.WithDialer(link.Dial),
		client.WithSessionTimeout(10*time.Second), client.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	states, stop := c.Subscribe()
	defer stop()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	await := func(want client.State) client.StateChange {
		for {
			select {
			case ev := <-states:
				if ev.State == want {
					return ev
				}
			case <-ctx.Done():
				log.Fatalf("no %v: %v", want, ctx.Err())
			}
		}
	}
	first := await(client.StateConnected).SessionID
	if _, err := c.Create(ctx, "/worker", nil, zk.FlagEphemeral); err != nil {
		log.Fatal(err)
	}

	// The server stops (keeping its data) and starts again on the same port.
	if err := zkc.StopServer(ctx, 0); err != nil {
		log.Fatal(err)
	}
	fmt.Println("server stopped:", await(client.StateSuspended).State)
	if err := zkc.StartServer(ctx, 0); err != nil {
		log.Fatal(err)
	}
	back := await(client.StateReconnected)
	fmt.Println("server back:", back.State, "- same session:", back.SessionID == first)

	// The server ends the session, as if it had timed out.
	if err := link.ExpireSession(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("session expired:", await(client.StateLost).State)
	fresh := await(client.StateReconnected)
	exists, _, err := c.Exists(ctx, "/worker")
	fmt.Println("new session:", fresh.SessionID != first, "- ephemeral node left:", exists, err)
	// Output:
	// server stopped: Suspended
	// server back: Reconnected - same session: true
	// session expired: Lost
	// new session: true - ephemeral node left: false <nil>
}

// A three-server ensemble: its leader is killed, the others elect a new one,
// and the old leader rejoins as a follower.
func Example_ensemble() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	zkc, err := zktest.Start(ctx, zktest.WithServers(3), zktest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		log.Fatal(err)
	}
	defer zkc.Close()
	fmt.Println("servers:", zkc.Size())

	old, err := zkc.Leader(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := zkc.KillServer(ctx, old); err != nil {
		log.Fatal(err)
	}
	next, err := zkc.Leader(ctx)
	for err != nil && ctx.Err() == nil { // the survivors take a moment to elect
		time.Sleep(100 * time.Millisecond)
		next, err = zkc.Leader(ctx)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("a new leader:", next != old)
	if err := zkc.StartServer(ctx, old); err != nil {
		log.Fatal(err)
	}
	mode, err := zkc.Mode(ctx, old)
	fmt.Println("the old leader rejoined as:", mode, err)
	// Output:
	// servers: 3
	// a new leader: true
	// the old leader rejoined as: follower <nil>
}
