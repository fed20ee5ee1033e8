package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// New only checks its options: it does no I/O, so it needs no server. A bad
// option is an error wrapping ErrInvalidArgument.
func ExampleNew() {
	c, err := client.New(
		client.WithServers("zk1:2181", "zk2:2181", "zk3:2181"),
		client.WithSessionTimeout(10*time.Second),
		client.WithNamespace("myapp"), // every path is under /myapp
		client.WithRetryPolicy(retry.Default()),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Println("namespace:", c.Namespace())

	_, err = client.New() // no servers
	fmt.Println("invalid:", errors.Is(err, zkrecipes.ErrInvalidArgument))
	// Output:
	// namespace: /myapp
	// invalid: true
}

// Start returns once the first session is established. Every operation
// takes a context first. (This example needs a ZooKeeper server at
// localhost:2181, so it is compiled but not run.)
func ExampleClient_Start() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := client.New(client.WithServers("localhost:2181"))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close() // ends the session: its ephemeral nodes go with it

	if err := c.Start(ctx); err != nil {
		log.Fatal(err) // no session within ctx; Start may be called again
	}
	sess := c.Session()
	fmt.Printf("session 0x%x, timeout %v\n", sess.ID(), c.SessionTimeout())

	// An ephemeral node lives as long as the session; missing parents are
	// made as container nodes.
	p, err := c.Create(ctx, "/services/worker-1", []byte("10.0.0.7:8080"), zk.FlagEphemeral, client.WithParents())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("registered at", p)

	<-sess.Done() // closed the moment the session is Lost, or by Close
	fmt.Println("session ended:", sess.Err())
}

// Subscribe delivers every state transition in order, none dropped, however
// slowly the channel is read. (This example needs a ZooKeeper server at
// localhost:2181, so it is compiled but not run.)
func ExampleClient_Subscribe() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := client.New(client.WithServers("localhost:2181"))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// Subscribe before Start to see Connected too.
	states, stop := c.Subscribe()
	defer stop()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}

	for ev := range states { // closed by stop or by Close
		switch ev.State {
		case client.StateConnected, client.StateReconnected:
			fmt.Printf("%s: session 0x%x\n", ev.State, ev.SessionID)
		case client.StateSuspended:
			// The session may still live; whoever holds a lock can no
			// longer be sure of it.
			fmt.Println("suspended: pause work that needs the session")
		case client.StateLost:
			// Every ephemeral node of the session is (or soon will be)
			// gone; the client goes on with a new session.
			fmt.Println("lost: rebuild what the session held")
		}
	}
}
