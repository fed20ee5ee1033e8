package mutex_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Lock, do the work, Unlock. The fencing token goes with every write to the
// protected resource, so the resource can refuse a holder that was paused
// past the loss of its lock.
func ExampleMutex() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := client.New(client.WithServers(itest.ExampleServers()...))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	m, err := mutex.New(c, "/examples/mutex/report")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Lock(ctx); err != nil {
		fmt.Println("lock:", err)
		return
	}
	fmt.Println("held:", m.IsHeld())
	token, err := m.Token(ctx) // hand this to the resource with every write
	fmt.Println("has a fencing token:", err == nil && token > 0)

	// ... the work only one process may do at a time ...

	if err := m.Unlock(ctx); err != nil {
		fmt.Println("unlock:", err)
		return
	}
	fmt.Println("held:", m.IsHeld())
	// Output:
	// held: true
	// has a fencing token: true
	// held: false
}

// TryLock does not wait: while another process holds the lock it returns
// ErrLocked at once.
func ExampleMutex_TryLock() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// Two processes, each with its own session.
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

	const path = "/examples/mutex/trylock"
	first, _ := mutex.New(c1, path)
	second, _ := mutex.New(c2, path)

	if err := first.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	err = second.TryLock(ctx)
	if errors.Is(err, zkrecipes.ErrLocked) {
		fmt.Println("second: locked elsewhere")
	}

	if err := first.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := second.TryLock(ctx); err == nil {
		fmt.Println("second: held")
	}
	_ = second.Unlock(ctx)
	// Output:
	// second: locked elsewhere
	// second: held
}

// Lost closes as soon as the holder can no longer be sure it holds (its
// connection was suspended, its session lost, its node deleted), and on
// Unlock. Select on it next to the work, or derive the work's context from
// it so that everything under the lock stops when the lock may be gone.
func ExampleMutex_Lost() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	m, _ := mutex.New(c, "/examples/mutex/lost")
	if err := m.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	lost := m.Lost()

	// A context for the work that ends if the lock may be gone.
	work, stop := context.WithCancel(ctx)
	go func() {
		select {
		case <-lost:
			stop()
		case <-work.Done():
		}
	}()

	for step := 1; step <= 2; step++ {
		select {
		case <-lost:
			fmt.Println("lock lost: abandon the work")
			stop()
			_ = m.Unlock(ctx)
			return
		default:
		}
		// Calls made with work give up by themselves once the lock is lost.
		if _, _, err := c.Exists(work, "/examples"); err != nil {
			fmt.Println(err)
		}
		fmt.Println("step", step, "done under the lock")
	}
	stop()

	if err := m.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-lost:
		fmt.Println("Lost is closed after Unlock")
	case <-time.After(10 * time.Second):
		fmt.Println("Lost still open after Unlock")
	}
	// Output:
	// step 1 done under the lock
	// step 2 done under the lock
	// Lost is closed after Unlock
}

// Revoke asks the holder to let go, following Curator's revocation
// protocol: the holder's revocation listener runs, and it decides when to
// Unlock.
func ExampleRevoke() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	holderClient, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer holderClient.Close()
	otherClient, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer otherClient.Close()

	const path = "/examples/mutex/revoke"
	asked := make(chan struct{}, 1)
	holder, _ := mutex.New(holderClient, path, mutex.WithRevocationListener(func() {
		asked <- struct{}{} // finish up, then Unlock
	}))
	if err := holder.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}

	// Another process finds the holder's node and asks it to release.
	other, _ := mutex.New(otherClient, path)
	parts, err := other.Participants(ctx)
	if err != nil || len(parts) == 0 {
		fmt.Println("participants:", parts, err)
		return
	}
	if err := mutex.Revoke(ctx, otherClient, parts[0].Path); err != nil {
		fmt.Println(err)
		return
	}

	select {
	case <-asked:
		fmt.Println("holder: asked to release")
	case <-ctx.Done():
		fmt.Println("holder: never asked")
		return
	}
	if err := holder.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := other.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("other: held")
	_ = other.Unlock(ctx)
	// Output:
	// holder: asked to release
	// other: held
}

// A Multi takes a set of locks all or nothing, in the order of their
// paths whatever the order given, so two processes listing the same paths
// differently cannot deadlock. Each lock keeps its own fencing token.
func ExampleMulti() {
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

	// A transfer between two accounts, as two processes list them.
	first, _ := mutex.NewMulti(c1, []string{"/examples/multi/acct-17", "/examples/multi/acct-4"})
	second, _ := mutex.NewMulti(c2, []string{"/examples/multi/acct-4", "/examples/multi/acct-17"})
	fmt.Println("order:", first.Paths())

	if err := first.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	tokens, err := first.Tokens(ctx)
	fmt.Println("a token per lock:", err == nil && len(tokens) == 2)
	err = second.TryLock(ctx)
	fmt.Println("second while first holds:", errors.Is(err, zkrecipes.ErrLocked))
	if err := first.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := second.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("second holds:", second.IsHeld())
	_ = second.Unlock(ctx)
	// Output:
	// order: [/examples/multi/acct-17 /examples/multi/acct-4]
	// a token per lock: true
	// second while first holds: true
	// second holds: true
}
