package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// rwActor takes one side of the lock on its own goroutine, records when it
// holds, and releases when told.
type rwActor struct {
	name     string
	acquired chan error
	release  chan struct{}
	released chan error
	finished chan struct{} // closed when the goroutine returns
}

func rwStartActor(ctx context.Context, log *rwLog, name string, lock, unlock func(context.Context) error) *rwActor {
	a := &rwActor{
		name:     name,
		acquired: make(chan error, 1),
		release:  make(chan struct{}),
		released: make(chan error, 1),
		finished: make(chan struct{}),
	}
	go func() {
		defer close(a.finished)
		if err := lock(ctx); err != nil {
			a.acquired <- err
			a.released <- err
			return
		}
		log.add(name + " acquired")
		a.acquired <- nil
		select {
		case <-a.release:
		case <-ctx.Done():
		}
		log.add(name + " released")
		a.released <- unlock(context.Background())
	}()
	return a
}

func (a *rwActor) mustAcquire(t *testing.T) {
	t.Helper()
	require.NoError(t, await(t, a.acquired, rwPatience, a.name+" acquire"))
}

func (a *rwActor) mustWait(t *testing.T) { t.Helper(); pending(t, a.acquired, rwQuiet, a.name) }

func (a *rwActor) mustRelease(t *testing.T) {
	t.Helper()
	close(a.release)
	require.NoError(t, await(t, a.released, rwPatience, a.name+" release"))
}

// TestRWLockOrder queues R1 R2 W1 R3 W2 behind a writer W0 and checks that
// the lock is granted in queue order: R1 and R2 together, W1 alone after
// both, then R3, then W2 (writers are not overtaken by later readers).
func TestRWLockOrder(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	var log rwLog
	actx, stop := context.WithCancel(ctx)

	type spec struct {
		name  string
		write bool
	}
	specs := []spec{{"W0", true}, {"R1", false}, {"R2", false}, {"W1", true}, {"R3", false}, {"W2", true}}
	actors := map[string]*rwActor{}
	t.Cleanup(func() {
		stop() // ends the waits and holdings a failed test left behind
		for _, a := range actors {
			<-a.finished
		}
	})
	for i, s := range specs {
		rw, _ := rwHandle(t, clientOpts{ns: ns})
		lock, unlock := rw.RLock, rw.RUnlock
		if s.write {
			lock, unlock = rw.Lock, rw.Unlock
		}
		actors[s.name] = rwStartActor(actx, &log, s.name, lock, unlock)
		// The next one starts only once this one's node is in the queue.
		waitChildren(t, obs, rwDir, i+1)
		if i == 0 {
			actors["W0"].mustAcquire(t)
		}
	}

	// Queue order on the server is the order of creation.
	rw, err := rwlock.New(obs, rwDir)
	require.NoError(t, err)
	parts, err := rw.Participants(ctx)
	require.NoError(t, err)
	require.Len(t, parts, 6)
	wantMarkers := []string{rwlock.WriteLockName, rwlock.ReadLockName, rwlock.ReadLockName,
		rwlock.WriteLockName, rwlock.ReadLockName, rwlock.WriteLockName}
	for i, p := range parts {
		require.Equal(t, wantMarkers[i], p.Marker, "participant %d (%s)", i, p.Name)
	}

	actors["R1"].mustWait(t)
	actors["W0"].mustRelease(t)
	actors["R1"].mustAcquire(t)
	actors["R2"].mustAcquire(t) // R1 and R2 hold together
	actors["W1"].mustWait(t)
	actors["R3"].mustWait(t) // behind W1: a later reader does not overtake a queued writer
	actors["R1"].mustRelease(t)
	actors["W1"].mustWait(t) // R2 still reads
	actors["R2"].mustRelease(t)
	actors["W1"].mustAcquire(t)
	actors["R3"].mustWait(t)
	actors["W1"].mustRelease(t)
	actors["R3"].mustAcquire(t)
	actors["W2"].mustWait(t)
	actors["R3"].mustRelease(t)
	actors["W2"].mustAcquire(t)
	actors["W2"].mustRelease(t)

	ev := log.list()
	t.Logf("events: %v", ev)
	before := func(a, b string) {
		t.Helper()
		ia, ib := log.index(a), log.index(b)
		require.True(t, ia >= 0 && ib >= 0 && ia < ib, "want %q before %q in %v", a, b, ev)
	}
	before("W0 released", "R1 acquired")
	before("W0 released", "R2 acquired")
	before("R1 acquired", "R1 released")
	before("R2 acquired", "R1 released") // both held at once
	before("R1 acquired", "R2 released")
	before("R1 released", "W1 acquired")
	before("R2 released", "W1 acquired")
	before("W1 released", "R3 acquired")
	before("R3 released", "W2 acquired")
	require.Len(t, ev, 12)
	require.Empty(t, children(t, obs, rwDir))
}
