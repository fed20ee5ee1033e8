package queue_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// A producer and a lock-safe consumer: each job is removed from the queue
// only once its handler returned nil; a consumer that dies in its handler
// leaves the job to another (Java consumers of the same path included).
func ExampleQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	jobs, _ := queue.New(c, "/examples/queue/jobs", queue.WithLockPath("/examples/queue/jobs-locks"))
	defer jobs.Close(context.Background())
	for _, j := range []string{"resize a.png", "resize b.png", "resize c.png"} {
		if err := jobs.Put(ctx, []byte(j)); err != nil {
			fmt.Println(err)
			return
		}
	}

	cctx, stop := context.WithCancel(ctx)
	done := 0
	err = jobs.Consume(cctx, func(ctx context.Context, it *queue.Item) error {
		fmt.Println("doing:", string(it.Data))
		if done++; done == 3 {
			stop() // Consume returns once this job is removed
		}
		return nil
	})
	fmt.Println("consume:", err)
	n, _ := jobs.Len(ctx)
	fmt.Println("left:", n)
	// Output:
	// doing: resize a.png
	// doing: resize b.png
	// doing: resize c.png
	// consume: context canceled
	// left: 0
}

// What a handler writes in ZooKeeper with CommitWith commits in the
// transaction that removes its item: once per item, even when a consumer
// loses its lock and another processes the item again.
func ExampleItem_CommitWith() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	orders, _ := queue.New(c, "/examples/commit/orders", queue.WithLockPath("/examples/commit/orders-locks"))
	defer orders.Close(context.Background())
	_, _ = c.Create(ctx, "/examples/commit/shipped/x", nil, 0, client.WithParents())
	_ = orders.Put(ctx, []byte("order-17"))

	cctx, stop := context.WithCancel(ctx)
	_ = orders.Consume(cctx, func(ctx context.Context, it *queue.Item) error {
		defer stop()
		return it.CommitWith(&zk.CreateRequest{Path: "/examples/commit/shipped/" + string(it.Data), Data: []byte("ok")})
	})
	data, _, err := c.Get(ctx, "/examples/commit/shipped/order-17")
	fmt.Println(string(data), err)
	// Output: ok <nil>
}

// Items come out lowest priority number first, whatever their put order.
func ExamplePriorityQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	q, _ := queue.NewPriority(c, "/examples/priority/q")
	defer q.Close(context.Background())
	_ = q.Put(ctx, 5, []byte("low"))
	_ = q.Put(ctx, -1, []byte("urgent"))
	_ = q.Put(ctx, 3, []byte("normal"))

	cctx, stop := context.WithCancel(ctx)
	n := 0
	_ = q.Consume(cctx, func(ctx context.Context, it *queue.Item) error {
		fmt.Println(it.Priority, string(it.Data))
		if n++; n == 3 {
			stop()
		}
		return nil
	})
	// Output:
	// -1 urgent
	// 3 normal
	// 5 low
}

// An item is taken only once it is due.
func ExampleDelayQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	q, _ := queue.NewDelay(c, "/examples/delay/q")
	defer q.Close(context.Background())
	_ = q.Put(ctx, 300*time.Millisecond, []byte("reminder"))
	_ = q.Put(ctx, 0, []byte("now"))

	cctx, stop := context.WithCancel(ctx)
	n := 0
	_ = q.Consume(cctx, func(ctx context.Context, it *queue.Item) error {
		fmt.Println(string(it.Data), "due", !time.Now().Before(it.Due))
		if n++; n == 2 {
			stop()
		}
		return nil
	})
	// Output:
	// now due true
	// reminder due true
}

// Items carry an id, by which they can be removed before a consumer takes
// them.
func ExampleIDQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	q, _ := queue.NewID(c, "/examples/id/q")
	defer q.Close(context.Background())
	_ = q.Put(ctx, "user-1", []byte("welcome mail"))
	_ = q.Put(ctx, "user-2", []byte("welcome mail"))
	_ = q.Put(ctx, "user-1", []byte("reminder"))
	removed, _ := q.Remove(ctx, "user-1")
	left, _ := q.Len(ctx)
	fmt.Println("removed", removed, "left", left)
	// Output: removed 2 left 1
}

// Curator's SimpleDistributedQueue: raw items, taken one at a time.
func ExampleSimple() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	q, _ := queue.NewSimple(c, "/examples/simple/q")
	defer q.Close(context.Background())
	_ = q.Offer(ctx, []byte("first"))
	_ = q.Offer(ctx, []byte("second"))
	head, _ := q.Peek(ctx)
	data, _ := q.Take(ctx)
	fmt.Println(string(head), string(data))
	data, _ = q.Poll(ctx)
	fmt.Println(string(data))
	_, err = q.Poll(ctx)
	fmt.Println(errors.Is(err, queue.ErrEmpty))
	// Output:
	// first first
	// second
	// true
}
