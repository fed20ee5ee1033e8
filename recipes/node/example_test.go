package node_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// A worker keeps its ephemeral registration node; another process reads
// it. The worker's data changes go through the handle; when someone deletes
// the node, the handle makes it again, with the latest data; Close deletes
// it for good.
func ExampleNode() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	worker, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer worker.Close()
	other, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer other.Close()

	n, err := node.New(worker, "/examples/node/workers/w1", []byte("idle"))
	if err != nil {
		fmt.Println(err)
		return
	}
	events, stop := n.Events()
	defer stop()
	if err := n.Start(ctx); err != nil { // returns once the node is made
		fmt.Println(err)
		return
	}
	fmt.Println((<-events).Type, n.Path())

	if err := n.SetData(ctx, []byte("busy")); err != nil {
		fmt.Println(err)
		return
	}
	data, _, _ := other.Get(ctx, n.Path())
	fmt.Println("the other process reads", string(data))

	// Someone deletes it: the handle sees it go and makes it again.
	if err := other.Delete(ctx, n.Path(), -1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println((<-events).Type)
	fmt.Println((<-events).Type, n.Path())
	data, _, _ = other.Get(ctx, n.Path())
	fmt.Println("made again with", string(data))

	if err := n.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	ok, _, _ := other.Exists(ctx, "/examples/node/workers/w1")
	fmt.Println("there after Close:", ok)
	// Output:
	// Created /examples/node/workers/w1
	// the other process reads busy
	// Gone
	// Created /examples/node/workers/w1
	// made again with busy
	// there after Close: false
}

// With protection, the name carries a UUID, so that a create whose reply
// was lost is found again rather than made twice; with a sequential mode,
// ZooKeeper's sequence number follows.
func ExampleWithProtection() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	n, err := node.New(c, "/examples/node/group/member-", []byte("10.0.0.7:8080"),
		node.WithMode(node.EphemeralSequential), node.WithProtection())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer n.Close(ctx) // also when Start fails: the handle is started all the same
	if err := n.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	name := strings.TrimPrefix(n.Path(), "/examples/node/group/")
	// _c_ + a UUID (36 characters) + "-member-" + 10 digits
	fmt.Println(strings.HasPrefix(name, client.ProtectedPrefix), len(name) == len("_c_")+36+len("-member-")+10)
	// Output:
	// true true
}

// A TTL node outlives its handle by about its TTL: the handle keeps it
// alive with a "touch" child, so the node's own data is left alone.
func ExampleWithTTL() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	n, err := node.New(c, "/examples/node/leases/job-7", []byte("host-3"), node.WithTTL(time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := n.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(3 * time.Second) // three TTLs: the touches keep it
	_, st, err := c.Get(ctx, n.Path())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("there after 3 s, data version", st.Version)
	if err := n.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	ok, _, _ := c.Exists(ctx, n.Path())
	fmt.Println("there after Close:", ok)
	// Output:
	// there after 3 s, data version 0
	// there after Close: false
}
