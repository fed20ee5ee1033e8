package integration

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	zkshared "github.com/go-zkrecipes/zkrecipes/recipes/shared"
)

// Tests of a semaphore's limit: taken from a shared count, and
// the opt-in check that every handle on a path uses one limit.

// semWithCount returns a semaphore on semPath whose limit is cnt.
func semWithCount(t testing.TB, c *client.Client, cnt *zkshared.Count, opts ...semaphore.Option) *semaphore.Semaphore {
	t.Helper()
	s, err := semaphore.NewWithCount(c, semPath, cnt, opts...)
	require.NoError(t, err)
	return s
}

// TestSemaphoreThreadedLeaseIncrease is Curator's testThreadedLeaseIncrease:
// with the limit at 1 and the lease held, a second acquirer (another
// session) blocks; raising the count to 2 from a third client wakes it
// while the first lease is still held.
func TestSemaphoreThreadedLeaseIncrease(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c1 := connect(t, clientOpts{ns: ns})
	c2 := connect(t, clientOpts{ns: ns})
	setter := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, time.Minute)

	cnt1 := shcStart(t, c1, "/limit", 1)
	cnt2 := shcStart(t, c2, "/limit", 1)
	cntSet := shcStart(t, setter, "/limit", 1)
	s1, s2 := semWithCount(t, c1, cnt1), semWithCount(t, c2, cnt2)
	assert.Equal(t, 1, s1.MaxLeases())

	first, err := s1.Acquire(ctx)
	require.NoError(t, err)
	second := semAcquireAsync(ctx, s2, 1)
	semWaiting(t, setter, 2) // the second acquirer waits for room
	pending(t, second, 300*time.Millisecond, "an acquire over the limit")

	raised := time.Now()
	require.NoError(t, cntSet.Set(ctx, 2))
	r := await(t, second, 10*time.Second, "the acquire woken by the raised count")
	require.NoError(t, r.err)
	t.Logf("granted %v after the count was raised", time.Since(raised).Round(time.Millisecond))
	assert.False(t, closed(first.Lost()), "the first lease is still held")
	assert.Len(t, children(t, setter, semLeases), 2, "two leases, the new limit")
	assert.Equal(t, 2, s2.MaxLeases())

	semReleaseAll(t, ctx, r.leases)
	require.NoError(t, first.Release(ctx))
	semNoNodes(t, setter)
}

// TestSemaphoreLoweredCount: lowering the count revokes nothing, but a
// newcomer waits until the holders are below the new limit: with 3 held and
// the limit lowered to 1, it is granted only once all 3 are released.
func TestSemaphoreLoweredCount(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	other := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, time.Minute)
	cnt := shcStart(t, c, "/limit", 3)
	cntOther := shcStart(t, other, "/limit", 3)
	s, so := semWithCount(t, c, cnt), semWithCount(t, other, cntOther)

	held, err := s.AcquireN(ctx, 3)
	require.NoError(t, err)
	require.NoError(t, cnt.Set(ctx, 1))
	eventually(t, 10*time.Second, "the other handle to see the lowered count", func() bool { return so.MaxLeases() == 1 })
	for _, l := range held {
		assert.False(t, closed(l.Lost()), "lowering the count revoked a lease")
	}

	newcomer := semAcquireAsync(ctx, so, 1)
	semWaiting(t, other, 4)
	for i, l := range held {
		pending(t, newcomer, 300*time.Millisecond, "a newcomer while holders are not below the lowered limit")
		require.NoError(t, l.Release(ctx), "release %d", i)
	}
	r := await(t, newcomer, 10*time.Second, "the newcomer once every holder left")
	require.NoError(t, r.err)
	semReleaseAll(t, ctx, r.leases)

	// AcquireN above the current limit waits for it to be raised instead
	// of failing at once.
	two := semAcquireAsync(ctx, so, 2)
	pending(t, two, 300*time.Millisecond, "AcquireN(2) with a limit of 1")
	require.NoError(t, cnt.Set(ctx, 2))
	r = await(t, two, 10*time.Second, "AcquireN(2) once the limit is 2")
	require.NoError(t, r.err)
	assert.Len(t, r.leases, 2)
	semReleaseAll(t, ctx, r.leases)
	semNoNodes(t, other)
}

// TestSemaphoreCountUnreadable: a semaphore whose count is not started, or
// closed, fails its acquires with the count's error and leaves no node.
func TestSemaphoreCountUnreadable(t *testing.T) {
	noLeaks(t)
	c := connect(t, clientOpts{ns: namespace(t)})
	ctx := ctxT(t, 30*time.Second)
	cnt, err := zkshared.NewCount(c, "/limit", 2)
	require.NoError(t, err)
	s := semWithCount(t, c, cnt)

	_, err = s.Acquire(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrNotStarted)
	assert.Equal(t, 0, s.MaxLeases())
	semNoNodes(t, c)

	require.NoError(t, cnt.Start(ctx))
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
	require.NoError(t, cnt.Close())
	_, err = s.TryAcquire(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrClosed)
	semNoNodes(t, c)

	_, err = semaphore.NewWithCount(c, semPath, nil)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = semaphore.NewWithCount(c, semPath, cnt, semaphore.WithLimitCheck())
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, "a limit check on a changing limit")
}

// TestSemaphoreLimitCheck: with WithLimitCheck the first acquire writes the
// limit on the semaphore's node; a handle with another limit fails with a
// *MaxConflictError and leaves no node; one with the same limit, or without
// the check, works. Non-numeric data (say, written by another tool) is
// ignored.
func TestSemaphoreLimitCheck(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c := connect(t, clientOpts{ns: ns})
	other := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)

	three := semNew(t, c, 3, semaphore.WithLimitCheck())
	held, err := three.Acquire(ctx)
	require.NoError(t, err)
	data, _ := shcBytes(t, other, semPath)
	assert.Equal(t, "3", string(data), "the limit written on the semaphore's node")

	four := semNew(t, other, 4, semaphore.WithLimitCheck())
	_, err = four.Acquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrMaxConflict)
	var mc *semaphore.MaxConflictError
	require.True(t, errors.As(err, &mc), "%v", err)
	assert.Equal(t, semaphore.MaxConflictError{Path: semPath, Local: 4, Stored: 3}, *mc)
	assert.Contains(t, err.Error(), "allows 4 leases, but its node says 3")
	_, err = four.TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrMaxConflict)
	assert.Len(t, children(t, other, semLeases), 1, "only the first handle's lease")
	eventually(t, 10*time.Second, "the refused acquires' locks nodes to go", func() bool {
		return len(children(t, other, semLocks)) == 0
	})

	same := semNew(t, other, 3, semaphore.WithLimitCheck())
	l, err := same.Acquire(ctx)
	require.NoError(t, err, "a handle with the same limit")
	require.NoError(t, l.Release(ctx))
	unchecked := semNew(t, other, 4)
	l, err = unchecked.Acquire(ctx)
	require.NoError(t, err, "a handle without the check, as Curator's")
	require.NoError(t, l.Release(ctx))

	_, err = other.Set(ctx, semPath, []byte("written by someone else"), -1)
	require.NoError(t, err)
	l, err = four.Acquire(ctx)
	require.NoError(t, err, "non-numeric data is ignored")
	require.NoError(t, l.Release(ctx))
	data, _ = shcBytes(t, other, semPath)
	assert.True(t, strings.HasPrefix(string(data), "written"), "non-numeric data is left alone: %q", data)

	require.NoError(t, held.Release(ctx))
	semNoNodes(t, other)
}

// TestSemaphoreCountCuratorWakes (acceptance 5): a Curator 5.4
// InterProcessSemaphoreV2 whose limit is a Java SharedCount blocks while a
// Go semaphore on the same count holds the only lease; Go raises the count
// through its own shared.Count, and the Java acquirer wakes and is granted
// while the Go lease is still held.
func TestSemaphoreCountCuratorWakes(t *testing.T) {
	ns := namespace(t)
	semAbs, countAbs := ns+semPath, ns+"/limit"
	root := connect(t, clientOpts{}) // no namespace: Curator sees absolute paths
	ctx := ctxT(t, 2*time.Minute)
	cnt := shcStart(t, root, countAbs, 1)
	s, err := semaphore.NewWithCount(root, semAbs, cnt)
	require.NoError(t, err)

	held, err := s.Acquire(ctx)
	require.NoError(t, err)
	java := startJava(t, ctx, "CuratorSemaphoreCount", shared.ConnectString(), semAbs, countAbs)
	assert.Contains(t, java.text(), "curator: ready limit=1")
	waitChildren(t, root, semAbs+"/leases", 2) // Java's lease node: it waits
	time.Sleep(300 * time.Millisecond)
	assert.NotContains(t, java.text(), "acquired", "Java was granted over the limit")

	raised := time.Now()
	require.NoError(t, cnt.Set(ctx, 2))
	eventually(t, 20*time.Second, "Java to be granted after Go raised the limit", func() bool {
		return strings.Contains(java.text(), "curator: acquired")
	})
	t.Logf("Java granted about %v after Go raised the count", time.Since(raised).Round(time.Millisecond))
	assert.False(t, closed(held.Lost()), "the Go lease is still held")
	out := java.output(t)
	assert.Contains(t, out, "curator: acquired limit=2")
	require.NoError(t, held.Release(ctx))
	eventually(t, 10*time.Second, "the semaphore's directories to be empty", func() bool {
		l, _ := tryChildren(root, semAbs+"/leases")
		k, _ := tryChildren(root, semAbs+"/locks")
		return len(l) == 0 && len(k) == 0
	})
}
