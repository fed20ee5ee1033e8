package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/internal/lockq"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestRWLockReaderWakesOnce queues a reader R behind three writers. R waits
// for the last of them, W3, and also watches W2, the node before it. W1's
// release does not wake R. W2's release wakes R once, to list early while W3
// holds; W3's release then wakes R exactly once and grants it the lock with
// no further listing. (Curator's reader, watching the first writer ahead,
// would wake once per writer.)
//
// The test reads lockq.BenchWakeups, which counts for the whole process, so it
// must not run in parallel with others.
func TestRWLockReaderWakesOnce(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	var writers []*rwActor
	var log rwLog
	actx, stop := context.WithCancel(ctx)
	t.Cleanup(func() {
		stop()
		for _, a := range writers {
			<-a.finished
		}
	})
	for i := 1; i <= 3; i++ {
		rw, _ := rwHandle(t, clientOpts{ns: ns})
		writers = append(writers, rwStartActor(actx, &log, fmt.Sprintf("W%d", i), rw.Lock, rw.Unlock))
		waitChildren(t, obs, rwDir, i)
	}
	writers[0].mustAcquire(t)

	link := newLink(t)
	r, _ := rwHandle(t, clientOpts{ns: ns, link: link})
	listBase, getBase := listings(link), link.Requests(faultlink.OpGetData)
	existsBase := link.Requests(faultlink.OpExists) // the client's own sentinel watch
	got := rwAsync(ctx, r.RLock)
	// R is waiting once it has listed and set its two data watches: on the
	// writer it waits for and on the node before that.
	require.Eventually(t, func() bool {
		return link.Requests(faultlink.OpGetData)-getBase == 2
	}, 10*time.Second, 5*time.Millisecond, "R never started waiting")
	require.Equal(t, int64(1), listings(link)-listBase, "R's first listing")

	// W1 hands over to W2: R is not woken.
	writers[0].mustRelease(t)
	writers[1].mustAcquire(t)
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, int64(1), listings(link)-listBase, "W1's release made R list")
	// W2 hands over to W3: R wakes once and lists early, while W3 holds.
	writers[1].mustRelease(t)
	writers[2].mustAcquire(t)
	require.Eventually(t, func() bool { return listings(link)-listBase == 2 }, 10*time.Second, 5*time.Millisecond,
		"R lists early when W2 goes")
	pending(t, got, rwQuiet, "R behind W3")

	// W3 goes: only R waits now, so every wakeup from here on is R's.
	wakeBase := lockq.BenchWakeups()
	writers[2].mustRelease(t)
	require.NoError(t, await(t, got, rwPatience, "R"))
	require.Equal(t, int64(1), lockq.BenchWakeups()-wakeBase, "R's wakeups")
	require.Equal(t, int64(2), listings(link)-listBase,
		"W3's release grants R with no listing: its early listing showed W3 first")
	require.Eventually(t, func() bool { return link.Requests(faultlink.OpGetData)-getBase == 3 },
		5*time.Second, 5*time.Millisecond, "R set three watches in all: W3 and W2 while waiting, its own node once holding")
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, int64(3), link.Requests(faultlink.OpGetData)-getBase, "R read no other node")
	require.Equal(t, existsBase, link.Requests(faultlink.OpExists), "Curator's waiters use getData, not exists")
	require.NoError(t, r.RUnlock(ctx))
}

// TestRWLockReaderFastHandoff queues a reader behind exactly one writer: the
// writer's deletion is the grant, with no second listing.
func TestRWLockReaderFastHandoff(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})

	w, _ := rwHandle(t, clientOpts{ns: ns})
	require.NoError(t, w.Lock(ctx))

	link := newLink(t)
	r, _ := rwHandle(t, clientOpts{ns: ns, link: link})
	listBase, getBase := listings(link), link.Requests(faultlink.OpGetData)
	got := rwAsync(ctx, r.RLock)
	require.Eventually(t, func() bool {
		return link.Requests(faultlink.OpGetData)-getBase == 1
	}, 10*time.Second, 5*time.Millisecond, "R never started waiting")
	waitChildren(t, obs, rwDir, 2)
	pending(t, got, rwQuiet, "R behind W")

	wakeBase := lockq.BenchWakeups()
	require.NoError(t, w.Unlock(ctx))
	require.NoError(t, await(t, got, rwPatience, "R"))
	require.Equal(t, int64(1), lockq.BenchWakeups()-wakeBase, "R's wakeups")
	require.Equal(t, int64(1), listings(link)-listBase, "R listed only once: the writer's deletion was the grant")
	require.NoError(t, r.RUnlock(ctx))
}
