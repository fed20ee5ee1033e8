package shared_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Two processes share one count: the first Start seeds it, the second reads
// the seed; a write by one reaches the other through Events, and TrySet
// fails when the value it read is no longer current.
func ExampleCount() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c1, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c1.Close()
	c2, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c2.Close()

	const path = "/examples/shared/licences"
	first, _ := shared.NewCount(c1, path, 3)
	second, _ := shared.NewCount(c2, path, 10) // the node exists by then: its seed is unused
	if err := first.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer first.Close()
	if err := second.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer second.Close()

	v, _ := second.Get()
	fmt.Println("second reads", v.Count)

	changes, stop := second.Events() // every new value from now on
	defer stop()
	if err := first.Set(ctx, 5); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case v := <-changes:
		fmt.Println("second sees", v.Count)
	case <-ctx.Done():
		fmt.Println("no change seen")
		return
	}

	// Compare and set: from the same reading, only one write succeeds.
	v, _ = first.Get()
	ok1, _ := first.TrySet(ctx, v, v.Count+1)
	ok2, _ := second.TrySet(ctx, v, v.Count+1)
	now, _ := second.Get() // TrySet read the newer value when it failed
	fmt.Println("first:", ok1, "second:", ok2, "count:", now.Count)
	// Output:
	// second reads 3
	// second sees 5
	// first: true second: false count: 6
}

// Bytes shares arbitrary bytes (Curator's SharedValue): a configuration
// both processes read, changed with compare-and-set so that of two writers
// starting from one reading only one wins.
func ExampleBytes() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c1, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c1.Close()
	c2, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c2.Close()

	const path = "/examples/shared/config"
	first, _ := shared.NewBytes(c1, path, []byte(`{"mode":"a"}`))
	second, _ := shared.NewBytes(c2, path, []byte(`{"mode":"ignored"}`))
	for _, v := range []*shared.Bytes{first, second} {
		if err := v.Start(ctx); err != nil {
			fmt.Println(err)
			return
		}
		defer v.Close()
	}
	changes, stop := second.Events()
	defer stop()

	read, _ := first.Get()
	fmt.Printf("read %s at version %d\n", read.Data, read.Version)
	ok1, _ := first.TrySet(ctx, read, []byte(`{"mode":"b"}`))
	ok2, _ := second.TrySet(ctx, read, []byte(`{"mode":"c"}`)) // from the same, now old, reading
	fmt.Println("first:", ok1, "second:", ok2)
	select {
	case v := <-changes:
		fmt.Printf("second sees %s at version %d\n", v.Data, v.Version)
	case <-ctx.Done():
		fmt.Println("no change seen")
	}
	// Output:
	// read {"mode":"a"} at version 0
	// first: true second: false
	// second sees {"mode":"b"} at version 1
}
