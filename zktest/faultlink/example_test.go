package faultlink_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// One client's network path under the example's control: the reply to a
// create is lost, then the connection is cut and restored. Both are
// connection loss, not session loss: the client is Suspended, then
// Reconnected to the same session. The example starts its own throwaway
// server through zktest (ZK_BACKEND chooses docker or a local java
// process).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cluster, err := zktest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cluster.Close()

	link := faultlink.New()
	defer link.Close() // after the client's Close, deferred below
	c, err := client.New(
		client.WithServers(cluster.Addrs()...),
		client.WithDialer(link.Dial), // every connection of this client goes through the link
		client.WithLogger(slog.New(slog.DiscardHandler)),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	sid := c.Session().ID()
	states, stop := c.Subscribe()
	defer stop()
	next := func() client.StateChange {
		select {
		case ev := <-states:
			return ev
		case <-ctx.Done():
			return client.StateChange{}
		}
	}
	if _, err := c.Create(ctx, "/jobs", nil, 0); err != nil {
		fmt.Println(err)
		return
	}

	// The server creates the node, but the client never hears back and the
	// connection drops. The protected create finds its node by its UUID
	// instead of making a second one.
	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	if _, err := c.CreateProtected(ctx, "/jobs/job-", nil, zk.FlagEphemeralSequential); err != nil {
		fmt.Println(err)
		return
	}
	<-fired
	suspended, reconnected := next(), next()
	fmt.Println("lost reply:", suspended.State, "then", reconnected.State, "- same session:", reconnected.SessionID == sid)
	kids, _, err := c.Children(ctx, "/jobs")
	fmt.Println("nodes under /jobs:", len(kids), err)

	// Cut: connection loss at once; dials fail until Restore.
	link.Cut()
	fmt.Println("cut:", next().State)
	link.Restore()
	ev := next()
	fmt.Println("restored:", ev.State, "- same session:", ev.SessionID == sid)
	// Output:
	// lost reply: Suspended then Reconnected - same session: true
	// nodes under /jobs: 1 <nil>
	// cut: Suspended
	// restored: Reconnected - same session: true
}
