package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Two licences of a rate-limited service, shared by every process that
// names the same path. A third TryAcquire finds none free; Holders says who
// holds them.
func ExampleSemaphore() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var leases []*semaphore.Lease
	for _, who := range []string{"billing", "reports"} {
		s, err := semaphore.New(c, "/examples/semaphore/geo-api", 2, semaphore.WithData([]byte(who)))
		if err != nil {
			fmt.Println(err)
			return
		}
		l, err := s.Acquire(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		leases = append(leases, l)
	}
	s, err := semaphore.New(c, "/examples/semaphore/geo-api", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = s.TryAcquire(ctx)
	fmt.Println("third licence:", errors.Is(err, semaphore.ErrNoLeases))
	holders, err := s.Holders(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range holders {
		fmt.Println("held by", string(h.Data))
	}
	for _, l := range leases {
		if err := l.Release(ctx); err != nil {
			fmt.Println(err)
		}
	}
	free, err := s.Available(ctx)
	fmt.Println("free after release:", free, err)
	// Output:
	// third licence: true
	// held by billing
	// held by reports
	// free after release: 2 <nil>
}

// AcquireN takes several leases in one step: the second caller cannot start
// before the first has all it asked for, so two callers that each need 3 of
// 4 never hold 2 each and wait for each other.
func ExampleSemaphore_AcquireN() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	s, err := semaphore.New(c, "/examples/semaphore/workers", 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan string, 2)
	for range 2 {
		go func() {
			leases, err := s.AcquireN(ctx, 3)
			if err != nil {
				done <- err.Error()
				return
			}
			time.Sleep(50 * time.Millisecond) // the work
			for _, l := range leases {
				_ = l.Release(ctx)
			}
			done <- "done"
		}()
	}
	fmt.Println(<-done, <-done)
	// Output:
	// done done
}

// NewWithCount takes the limit from a shared count that any process can
// change: raising it wakes a blocked acquirer at once.
func ExampleNewWithCount() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	limit, err := shared.NewCount(c, "/examples/semaphore/limit", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := limit.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer limit.Close()
	s, err := semaphore.NewWithCount(c, "/examples/semaphore/exports", limit)
	if err != nil {
		fmt.Println(err)
		return
	}
	first, err := s.Acquire(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	second := make(chan error, 1)
	go func() {
		l, err := s.Acquire(ctx) // waits: the limit is 1
		if err == nil {
			err = l.Release(ctx)
		}
		second <- err
	}()
	time.Sleep(100 * time.Millisecond)
	fmt.Println("limit:", s.MaxLeases())
	if err := limit.Set(ctx, 2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("second acquire:", <-second)
	fmt.Println("limit:", s.MaxLeases())
	fmt.Println("release first:", first.Release(ctx))
	// Output:
	// limit: 1
	// second acquire: <nil>
	// limit: 2
	// release first: <nil>
}
