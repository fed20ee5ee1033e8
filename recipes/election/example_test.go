package election_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Three schedulers, each its own process (session), join one latch.
// Leadership passes in the order they started, as each leader closes.
func ExampleLatch() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var latches []*election.Latch
	for _, id := range []string{"sched-a", "sched-b", "sched-c"} {
		c, err := connect(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		l, err := election.NewLatch(c, "/examples/election/latch", election.WithID(id))
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := l.Start(ctx); err != nil {
			fmt.Println(err)
			return
		}
		latches = append(latches, l)
	}
	var last int64
	for _, l := range latches {
		t, err := l.Await(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.ID(), "leads; token grew:", t.Token() > last)
		last = t.Token()
		if err := l.Close(ctx); err != nil {
			fmt.Println(err)
		}
		fmt.Println(t.ID(), "closed; term ended:", errors.Is(t.Err(), zkrecipes.ErrClosed))
	}
	// Output:
	// sched-a leads; token grew: true
	// sched-a closed; term ended: true
	// sched-b leads; token grew: true
	// sched-b closed; term ended: true
	// sched-c leads; token grew: true
	// sched-c closed; term ended: true
}

// A leader loop that does one term of work and returns. Leader names the
// leader while the term lasts; afterwards there is none.
func ExampleRun() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	const path = "/examples/election/run"
	err = election.Run(ctx, c, path, func(ctx context.Context, t *election.Term) error {
		p, err := election.Leader(ctx, c, path)
		if err != nil {
			return err
		}
		fmt.Println("leading as", p.ID, "with the term's token:", p.Token == t.Token())
		return nil
	}, election.WithID("reporter"), election.WithRunOnce())
	fmt.Println("run:", err)
	_, err = election.Leader(ctx, c, path)
	fmt.Println("afterwards:", err)
	// Output:
	// leading as reporter with the term's token: true
	// run: <nil>
	// afterwards: zkrecipes: no leader
}

// Observe follows the leader of an election: here nobody, then a latch's
// leader, then nobody again once it resigns.
func ExampleObserve() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	const path = "/examples/election/observed"
	octx, stop := context.WithCancel(ctx)
	defer stop()
	changes, err := election.Observe(octx, c, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	show := func() {
		o := <-changes
		if o.Leader == nil {
			fmt.Println("no leader")
			return
		}
		fmt.Println("leader:", o.Leader.ID)
	}
	show()
	l, err := election.NewLatch(c, path, election.WithID("primary"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := l.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	show()
	if err := l.Close(ctx); err != nil {
		fmt.Println(err)
	}
	show()
	// Output:
	// no leader
	// leader: primary
	// no leader
}

// The leader proclaims its address and epoch without a new election;
// observers see each value, and the participant's id stays as it was. A
// term that has ended can proclaim no more.
func ExampleTerm_Proclaim() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	const path = "/examples/election/proclaim"
	l, _ := election.NewLatch(c, path, election.WithID("node-a"))
	if err := l.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	term, err := l.Await(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	octx, stop := context.WithCancel(ctx)
	defer stop()
	seen, _ := election.Observe(octx, c, path)
	first := <-seen
	fmt.Printf("leader %s, value %q\n", first.Leader.ID, first.Leader.Value)

	for epoch := 1; epoch <= 2; epoch++ {
		if err := term.Proclaim(ctx, fmt.Appendf(nil, "10.0.0.5:8080 epoch=%d", epoch)); err != nil {
			fmt.Println(err)
			return
		}
		o := <-seen
		fmt.Printf("leader %s, value %q\n", o.Leader.ID, o.Leader.Value)
	}
	_ = l.Close(ctx)
	err = term.Proclaim(ctx, []byte("too late"))
	fmt.Println("after Close:", errors.Is(err, election.ErrNotLeader))
	// Output:
	// leader node-a, value ""
	// leader node-a, value "10.0.0.5:8080 epoch=1"
	// leader node-a, value "10.0.0.5:8080 epoch=2"
	// after Close: true
}
