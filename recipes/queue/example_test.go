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

// A job whose commit can never succeed (its record's parent does not
// exist) is handed over again after a growing backoff, each failure logged
// at Warn with the failing op; after its third attempt it is moved to the
// dead-letter path, which a queue handle reads like any other.
func ExampleWithDeadLetterPath() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	jobs, _ := queue.New(c, "/examples/dead/jobs", queue.WithLockPath("/examples/dead/jobs-locks"),
		queue.WithMaxAttempts(3), queue.WithDeadLetterPath("/examples/dead/failed"))
	defer jobs.Close(context.Background())
	events, unsubscribe := jobs.Events()
	defer unsubscribe()
	_ = jobs.Put(ctx, []byte("job-1"))

	cctx, stop := context.WithCancel(ctx)
	last := make(chan queue.Event, 1)
	go func() {
		for ev := range events {
			if ev.Type == queue.DeadLettered {
				last <- ev
				stop()
				return
			}
		}
	}()
	err = jobs.Consume(cctx, func(ctx context.Context, it *queue.Item) error {
		fmt.Println("attempt", it.Attempts+1)
		return it.CommitWith(&zk.CreateRequest{Path: "/examples/dead/no-such-parent/" + string(it.Data)})
	})
	fmt.Println("consume:", err)
	ev := <-last
	fmt.Println(ev.Type, errors.Is(ev.Err, queue.ErrMaxAttempts), errors.Is(ev.Err, zk.ErrNoNode))
	var op *client.OpError
	if errors.As(ev.Err, &op) {
		fmt.Println("failing op:", op.Index, op.Op, op.Path)
	}

	failed, _ := queue.New(c, "/examples/dead/failed")
	defer failed.Close(context.Background())
	dctx, dstop := context.WithCancel(ctx)
	_ = failed.Consume(dctx, func(ctx context.Context, it *queue.Item) error {
		defer dstop()
		fmt.Println("dead letter:", string(it.Data))
		return nil
	})
	// Output:
	// attempt 1
	// attempt 2
	// attempt 3
	// consume: context canceled
	// DEAD_LETTERED true true
	// failing op: 0 create /examples/dead/no-such-parent/job-1
	// dead letter: job-1
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
