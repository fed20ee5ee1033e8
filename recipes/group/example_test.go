package group_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/group"
)

// Two processes join one group; each sees both. When one leaves, the other
// hears of it.
func ExampleMember() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c1, err := itest.ConnectExample(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c1.Close()
	c2, err := itest.ConnectExample(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c2.Close()

	const path = "/examples/group/workers"
	a, _ := group.New(c1, path, "a", []byte("10.0.0.1:80"))
	b, _ := group.New(c2, path, "b", []byte("10.0.0.2:80"))
	if err := a.Start(ctx); err != nil { // returns once a is in the group and sees it
		fmt.Println(err)
		return
	}
	events, stop := a.Events() // a's changes from now on
	defer stop()
	if err := b.Start(ctx); err != nil { // another process joins
		fmt.Println(err)
		return
	}
	// a's view may still be catching up with a's own node: look at b's events.
	for ev := range events {
		if ev.ID == "b" {
			fmt.Println("a sees", ev.Type, ev.ID)
			break
		}
	}
	fmt.Println("members:", slices.Sorted(maps.Keys(a.Members())))

	_ = b.Close(ctx)
	for ev := range events {
		if ev.ID == "b" {
			fmt.Println("a sees", ev.Type, ev.ID)
			break
		}
	}
	fmt.Println("members:", slices.Sorted(maps.Keys(a.Members())))
	_ = a.Close(ctx)

	// Output:
	// a sees JOINED b
	// members: [a b]
	// a sees LEFT b
	// members: [a]
}
