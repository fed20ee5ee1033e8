package barrier_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
)

// A deployer holds every worker at a gate until the new configuration is
// out, then lets them all through.
func ExampleBarrier() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	deployer, err := itest.ConnectExample(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer deployer.Close()
	worker, err := itest.ConnectExample(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer worker.Close()

	const path = "/examples/barrier/gate"
	gate, _ := barrier.New(deployer, path)
	if err := gate.Set(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("gate set")

	passed := make(chan error, 1)
	go func() {
		w, _ := barrier.New(worker, path)
		passed <- w.Wait(ctx) // another process: blocks while the gate is set
	}()
	select {
	case <-passed:
		fmt.Println("the worker passed a closed gate!")
		return
	case <-time.After(200 * time.Millisecond):
		fmt.Println("worker waits")
	}
	if err := gate.Remove(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("gate removed; worker passes:", <-passed == nil)
	// Output:
	// gate set
	// worker waits
	// gate removed; worker passes: true
}

// Three workers, each its own process, start a step together and finish
// it together: nobody starts before all three are in, nobody goes on
// before all three are done.
func ExampleDouble() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 3
	var clients []*client.Client
	for range n {
		c, err := itest.ConnectExample(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		clients = append(clients, c)
	}

	var mu sync.Mutex
	inside, most, rounds := 0, 0, map[int64]int{}
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, _ := barrier.NewDouble(c, "/examples/barrier/step", n)
			defer d.Close(ctx)
			if err := d.Enter(ctx); err != nil { // waits until all three are in
				fmt.Println(err)
				return
			}
			mu.Lock()
			inside++
			most = max(most, inside)
			rounds[d.Round()]++ // the opening's id: the same for the three
			mu.Unlock()
			if err := d.Leave(ctx); err != nil { // waits until all three are out
				fmt.Println(err)
				return
			}
			mu.Lock()
			inside--
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println("most inside at once:", most)
	fmt.Println("openings:", len(rounds))
	fmt.Println("inside at the end:", inside)
	// Output:
	// most inside at once: 3
	// openings: 1
	// inside at the end: 0
}
