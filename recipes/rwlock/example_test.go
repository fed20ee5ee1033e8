package rwlock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// connect starts a client with a session of its own, standing for one
// process, on the examples' throwaway server.
func connect(ctx context.Context) (*client.Client, error) { return itest.ConnectExample(ctx) }

// Readers share the lock; a writer waits until every reader has left, and
// then has it alone. Two sessions stand for two processes.
func ExampleRWMutex() {
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

	catalog, err := rwlock.New(c1, "/examples/rwlock/catalog")
	if err != nil {
		fmt.Println(err)
		return
	}
	editor, err := rwlock.New(c2, "/examples/rwlock/catalog")
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := catalog.RLock(ctx); err != nil {
		fmt.Println("read lock:", err)
		return
	}
	fmt.Println("reading:", catalog.ReadLock().IsHeld())
	if err := editor.TryRLock(ctx); err != nil {
		fmt.Println("second read lock:", err)
		return
	}
	fmt.Println("another process reads too:", editor.ReadLock().IsHeld())
	if err := editor.RUnlock(ctx); err != nil {
		fmt.Println(err)
		return
	}

	// The editor wants to write; it must wait for the reader.
	written := make(chan error, 1)
	go func() {
		if err := editor.Lock(ctx); err != nil {
			written <- err
			return
		}
		// ... change the catalog, alone ...
		written <- editor.Unlock(ctx)
	}()

	select {
	case err := <-written:
		fmt.Println("the writer did not wait:", err)
		return
	case <-time.After(200 * time.Millisecond):
		fmt.Println("writer waits while a reader reads")
	}
	if err := catalog.RUnlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("writer done:", <-written)
	// Output:
	// reading: true
	// another process reads too: true
	// writer waits while a reader reads
	// writer done: <nil>
}

// A writer may downgrade: it keeps reading what it wrote, at its place in
// the queue and with its fencing token, while the write lock goes. Other
// readers may now join; the next writer still waits.
func ExampleRWMutex_downgrade() {
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

	rw, err := rwlock.New(c1, "/examples/rwlock/prices")
	if err != nil {
		fmt.Println(err)
		return
	}
	other, err := rwlock.New(c2, "/examples/rwlock/prices")
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := rw.Lock(ctx); err != nil {
		fmt.Println("write lock:", err)
		return
	}
	// ... write the new prices ...
	wtok, _ := rw.WriteLock().Token(ctx)
	if err := rw.Downgrade(ctx); err != nil { // does not wait
		fmt.Println("downgrade:", err)
		return
	}
	rtok, _ := rw.ReadLock().Token(ctx)
	fmt.Println("writing:", rw.WriteLock().IsHeld(), "reading:", rw.ReadLock().IsHeld(), "same token:", rtok == wtok)

	fmt.Println("another reader:", other.TryRLock(ctx))
	if err := other.RUnlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("another writer locked out:", errors.Is(other.TryLock(ctx), zkrecipes.ErrLocked))

	if err := rw.RUnlock(ctx); err != nil {
		fmt.Println("read unlock:", err)
		return
	}
	fmt.Println("after the read is released, another writer:", other.TryLock(ctx))
	if err := other.Unlock(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// writing: false reading: true same token: true
	// another reader: <nil>
	// another writer locked out: true
	// after the read is released, another writer: <nil>
}

// Taking the write lock while holding only the read lock could never
// succeed (this handle's own read stands in the way). Where the holding's
// context shows it, Lock says so at once instead of waiting forever.
// Release the read lock, then write.
func ExampleRWMutex_Lock_upgrade() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	rw, err := rwlock.New(c, "/examples/rwlock/inventory")
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := rw.RLock(ctx); err != nil {
		fmt.Println("read lock:", err)
		return
	}
	rctx, rcancel := rw.ReadLock().Context(ctx) // carries the read holding
	err = rw.Lock(rctx)
	rcancel()
	fmt.Println("upgrade refused:", errors.Is(err, zkrecipes.ErrUpgrade))

	if err := rw.RUnlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("write lock after reading:", rw.Lock(ctx))
	if err := rw.Unlock(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// upgrade refused: true
	// write lock after reading: <nil>
}

// Participants lists who queues, in order: here a writer holds, and a reader
// waits behind it. The nodes' names are Curator's, so Java services using
// InterProcessReadWriteLock on the same path see the same queue.
func ExampleRWMutex_Participants() {
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

	writer, err := rwlock.New(c1, "/examples/rwlock/report")
	if err != nil {
		fmt.Println(err)
		return
	}
	reader, err := rwlock.New(c2, "/examples/rwlock/report")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := writer.Lock(ctx); err != nil {
		fmt.Println("write lock:", err)
		return
	}

	waitCtx, stopWaiting := context.WithCancel(ctx)
	defer stopWaiting()
	waited := make(chan error, 1)
	go func() { waited <- reader.RLock(waitCtx) }()

	// Wait until the reader's node is in the queue.
	var parts []rwlock.Participant
	for len(parts) < 2 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		if parts, err = writer.Participants(ctx); err != nil {
			fmt.Println(err)
			return
		}
	}
	for i, p := range parts {
		role := "waits"
		if p.Path == writer.WriteLock().Node() {
			role = "holds"
		}
		fmt.Printf("%d: %s %s, protected name: %v\n", i, p.Marker, role, strings.HasPrefix(p.Name, client.ProtectedPrefix))
	}

	stopWaiting() // the reader gives up; its node goes with its wait
	fmt.Println("reader gave up:", errors.Is(<-waited, context.Canceled))
	if err := writer.Unlock(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0: __WRIT__ holds, protected name: true
	// 1: __READ__ waits, protected name: true
	// reader gave up: true
}

// Each side of a handle is a locker on its own, with its own reentrancy
// count, Lost channel and fencing token, like Curator's readLock() and
// writeLock().
func ExampleRWMutex_ReadLock() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	c, err := connect(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	rw, err := rwlock.New(c, "/examples/rwlock/settings")
	if err != nil {
		fmt.Println(err)
		return
	}

	// Code that needs any lock can take either side.
	var l mutex.Locker = rw.ReadLock()
	if err := l.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := l.Lock(ctx); err != nil { // readers of one handle share its read node
		fmt.Println(err)
		return
	}
	read := rw.ReadLock()
	fmt.Println("read held:", read.IsHeld(), "token set:", tokenSet(ctx, read))
	select {
	case <-read.Lost():
		fmt.Println("lost")
	default:
		fmt.Println("not lost")
	}
	fmt.Println("write held:", rw.WriteLock().IsHeld())

	_ = l.Unlock(ctx)
	fmt.Println("after one unlock:", read.IsHeld())
	_ = l.Unlock(ctx)
	fmt.Println("after two:", read.IsHeld())
	fmt.Println("a third is refused:", errors.Is(l.Unlock(ctx), zkrecipes.ErrNotHeld))
	// Output:
	// read held: true token set: true
	// not lost
	// write held: false
	// after one unlock: true
	// after two: false
	// a third is refused: true
}

func tokenSet(ctx context.Context, l mutex.Locker) bool {
	t, err := l.Token(ctx)
	return err == nil && t > 0
}
