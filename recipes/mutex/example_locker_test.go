package mutex_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// NewSyncLocker gives code that takes a sync.Locker the distributed lock.
// Goroutines sharing one handle exclude each other as with sync.Mutex (and
// every other process through ZooKeeper). sync.Locker has no error to
// return: errors go to onError, and Lock retries until it holds.
func ExampleNewSyncLocker() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	m, err := mutex.New(c, "/examples/mutex/synclocker")
	if err != nil {
		fmt.Println(err)
		return
	}
	var l sync.Locker = mutex.NewSyncLocker(m, func(err error) {
		fmt.Println("lock error:", err) // log it; Lock tries again a second later
	})

	counter := 0
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Lock()
			counter++ // one goroutine at a time, in this process and all others
			l.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println("counter:", counter)
	// Output:
	// counter: 3
}

// Reentrancy travels in a context: Context returns one that carries the
// holding, and Lock with it (or with a context derived from it) reenters at
// once. Without it, even this goroutine is refused, as by sync.Mutex. The
// context is cancelled when the holding is released or lost, so work done
// with it stops then.
func ExampleMutex_Context() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	m, err := mutex.New(c, "/examples/mutex/context")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	held, stop := m.Context(ctx)
	defer stop()

	// A helper that locks by itself reenters with the holding's context...
	if err := m.Lock(held); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reentered")
	if err := m.Unlock(ctx); err != nil { // one Unlock per Lock
		fmt.Println(err)
		return
	}
	// ...while a call without it waits, or, for TryLock, fails at once.
	var locked *zkrecipes.LockedError
	err = m.TryLock(ctx)
	fmt.Println("without the context:", errors.As(err, &locked) && locked.Local)

	if err := m.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	<-held.Done()
	fmt.Println("context ended on release:", errors.Is(context.Cause(held), zkrecipes.ErrNotHeld))
	// Output:
	// reentered
	// without the context: true
	// context ended on release: true
}

// OwnerCheck guards a write kept in ZooKeeper itself: the transaction commits
// only while the holding's lock node exists. A check taken while holding
// fails the transaction once the lock is released or lost, so a paused
// holder cannot overwrite its successor's work.
func ExampleMutex_OwnerCheck() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	const state = "/examples/mutex/ownercheck-state"
	if _, err := c.Create(ctx, state, []byte("v0"), 0, client.WithParents()); err != nil {
		fmt.Println(err)
		return
	}
	m, err := mutex.New(c, "/examples/mutex/ownercheck")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	check, err := m.OwnerCheck()
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Multi(ctx, check, &zk.SetDataRequest{Path: state, Data: []byte("v1"), Version: -1})
	fmt.Println("write while holding:", err)

	if err := m.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Multi(ctx, check, &zk.SetDataRequest{Path: state, Data: []byte("v2"), Version: -1})
	fmt.Println("write after Unlock refused:", errors.Is(err, zk.ErrNoNode))
	_, err = m.OwnerCheck()
	fmt.Println("no new check:", errors.Is(err, zkrecipes.ErrNotHeld))

	data, _, err := c.Get(ctx, state)
	fmt.Println("state:", string(data), err)
	_ = c.Delete(ctx, state, -1)
	// Output:
	// write while holding: <nil>
	// write after Unlock refused: true
	// no new check: true
	// state: v1 <nil>
}
