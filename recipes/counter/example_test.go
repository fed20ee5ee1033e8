package counter_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Two processes share one counter: each update is a compare-and-set, so
// concurrent increments are never lost, and CompareAndSet fails when the
// value is not the one expected.
func ExampleCounter() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var hits [2]*counter.Counter
	for i := range hits {
		c, err := connect(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		// Updates that lose 10 optimistic tries queue on a lock, as with
		// Curator's PromotedToLock.
		hits[i], _ = counter.New(c, "/examples/counter/hits",
			counter.WithPromotedLock(counter.PromotedLock{Path: "/examples/counter/hits-lock"}))
	}

	created, _ := hits[0].Initialize(ctx, 0)
	r, _ := hits[0].Increment(ctx)
	fmt.Println("created:", created, "increment:", r.PreValue, "->", r.PostValue)
	r, _ = hits[1].Add(ctx, 10)
	fmt.Println("add 10:", r.PreValue, "->", r.PostValue)
	r, _ = hits[0].CompareAndSet(ctx, 1, 100)
	fmt.Printf("compare 1 and set 100: %v (it holds %d)\n", r.Succeeded, r.PreValue)

	// 2 processes x 4 goroutines x 25 increments, all at once.
	var wg sync.WaitGroup
	for _, h := range hits {
		for range 4 {
			wg.Go(func() {
				for range 25 {
					if _, err := h.Increment(ctx); err != nil {
						fmt.Println(err)
					}
				}
			})
		}
	}
	wg.Wait()
	r, _ = hits[1].Get(ctx)
	fmt.Println("after 200 more:", r.PostValue)
	// Output:
	// created: true increment: 0 -> 1
	// add 10: 1 -> 11
	// compare 1 and set 100: false (it holds 11)
	// after 200 more: 211
}

// An update's error says whether the counter may have changed: only a
// *MaybeAppliedError does. Anything else can be retried safely; a maybe can
// not, and is settled by the version it names (every successful write
// makes one new version of the node).
func ExampleCounter_Add() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	orders, _ := counter.New(c, "/examples/counter/orders")

	for {
		r, err := orders.Add(ctx, 3)
		var maybe *counter.MaybeAppliedError
		switch {
		case err == nil:
			fmt.Printf("added: %d -> %d, version %d\n", r.PreValue, r.PostValue, r.Version)
		case errors.As(err, &maybe):
			fmt.Printf("unknown: %d at version %d may have been written\n", maybe.Value, maybe.Version+1)
		case ctx.Err() == nil:
			continue // not applied (ErrContention, a dropped connection while reading...): try again
		default:
			fmt.Println(err)
		}
		break
	}
	// Output:
	// added: 0 -> 3, version 1
}
