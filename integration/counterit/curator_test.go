package counterit

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// The ports of Curator's TestDistributedAtomicLong, one Go test per Java
// test, named as Curator names them.

// TestCorruptedValue: a node holding "foo" is no counter: reading it gives
// a typed error (Curator: a RuntimeException, not a buffer exception), and
// so do Increment and CompareAndSet, which write nothing; TrySet and
// ForceSet overwrite it.
func TestCorruptedValue(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	_, err := c.Create(ctx, "/counter", []byte("foo"), 0)
	require.NoError(t, err)
	dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(oneTime(t)))

	_, err = dal.Get(ctx)
	var bad *counter.BadDataError
	require.ErrorAs(t, err, &bad)
	require.ErrorIs(t, err, counter.ErrBadData)
	require.Equal(t, []byte("foo"), bad.Data)
	r, err := dal.Increment(ctx)
	require.ErrorIs(t, err, counter.ErrBadData)
	require.False(t, r.Succeeded)
	r, err = dal.CompareAndSet(ctx, 0, 1)
	require.ErrorIs(t, err, counter.ErrBadData)
	require.False(t, r.Succeeded)
	data, st, err := c.Get(ctx, "/counter")
	require.NoError(t, err)
	require.Equal(t, "foo", string(data), "a failed update wrote nothing")
	require.Zero(t, st.Version)

	r, err = dal.TrySet(ctx, 5)
	requireResult(t, r, err, 0, 5, 1, 0)
	require.NoError(t, dal.ForceSet(ctx, 6))
	v, _ := value(t, ctx, dal)
	require.EqualValues(t, 6, v)
}

// TestCompareAndSetWithFreshInstance: compare-and-set on a counter never
// written fails (it is not 0 until initialized); Initialize makes it, once.
func TestCompareAndSetWithFreshInstance(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(oneTime(t)))

	r, err := dal.CompareAndSet(ctx, 0, 1)
	require.NoError(t, err)
	require.False(t, r.Succeeded)
	require.False(t, itest.Exists(t, c, "/counter"), "a failed compare-and-set made no node")

	ok, err := dal.Initialize(ctx, 0)
	require.NoError(t, err)
	require.True(t, ok)
	r, err = dal.CompareAndSet(ctx, 0, 1)
	requireResult(t, r, err, 0, 1, 1, 0)

	ok, err = dal.Initialize(ctx, 0)
	require.NoError(t, err)
	require.False(t, ok)
	v, _ := value(t, ctx, dal)
	require.EqualValues(t, 1, v, "Initialize leaves an existing node alone")
}

// TestCompareAndSet: a compare-and-set succeeds once from a value, and
// fails when another writer increments between its read and its write
// (Curator forces that with a valueToBytes that increments; here the
// handle's remembered reading is the read, and another handle writes
// after it).
func TestCompareAndSet(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(oneTime(t)))
	require.NoError(t, dal.ForceSet(ctx, 1))

	r, err := dal.CompareAndSet(ctx, 1, 5)
	requireResult(t, r, err, 1, 5, 1, 0)
	r, err = dal.CompareAndSet(ctx, 1, 5)
	require.NoError(t, err)
	require.False(t, r.Succeeded)
	require.EqualValues(t, 5, r.PreValue)

	inc := newCounter(t, c, "/counter", counter.WithRetryPolicy(oneTime(t)))
	r, err = inc.Increment(ctx) // between dal's reading (5) and its next write
	requireResult(t, r, err, 5, 6, 1, 0)
	r, err = dal.CompareAndSet(ctx, 5, 10)
	require.NoError(t, err)
	require.False(t, r.Succeeded, "the increment came between the read and the write")
	require.EqualValues(t, 6, r.PreValue, "the failed compare-and-set read the newer value")
	require.Equal(t, 1, r.Stats.OptimisticTries, "one write, refused on its version")
	v, _ := value(t, ctx, dal)
	require.EqualValues(t, 6, v)
}

// TestForceSet: ForceSet overwrites whatever increments did, while they
// run. Curator runs 1000 increments and 1000 forceSet(0) on one instance,
// 10 ms apart, and checks the value is below 10; here 200 of each, and the
// final value is bounded by the increments that can have come after the
// last ForceSet.
func TestForceSet(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 90*time.Second)
	dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(oneTime(t)))

	const n = 200
	type inc struct {
		invoke, ret time.Time
	}
	var incs []inc
	var lastSetInvoke, lastSetReturn time.Time
	var wg sync.WaitGroup
	wg.Go(func() {
		for range n {
			start := time.Now()
			r, err := dal.Increment(ctx)
			switch {
			case err == nil:
				require.Equal(t, r.PreValue+1, r.PostValue)
				incs = append(incs, inc{start, time.Now()})
			case !errors.Is(err, counter.ErrContention):
				require.NoError(t, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	wg.Go(func() {
		for range n {
			lastSetInvoke = time.Now()
			require.NoError(t, dal.ForceSet(ctx, 0))
			lastSetReturn = time.Now()
			time.Sleep(10 * time.Millisecond)
		}
	})
	r, err := dal.Get(ctx)
	require.NoError(t, err)
	require.Less(t, r.PreValue, int64(10))
	wg.Wait()

	var after, maybeAfter int64 // increments certainly / possibly after the last ForceSet
	for _, x := range incs {
		if x.invoke.After(lastSetReturn) {
			after++
		}
		if x.ret.After(lastSetInvoke) {
			maybeAfter++
		}
	}
	v, _ := value(t, ctx, dal)
	require.GreaterOrEqual(t, v, after)
	require.LessOrEqual(t, v, maybeAfter)
	t.Logf("%d increments succeeded of %d; final value %d (between %d and %d)", len(incs), n, v, after, maybeAfter)
}

// TestSimulation: 20 goroutines, each its own client, each 50 increments
// a few milliseconds apart, optimistic with ExponentialBackoff(3 ms, 3)
// and promoted to a lock with the same policy. As in Curator: no error
// (a successful increment's value above the goroutine's previous one),
// and both optimistic and promoted tries were made. Also: the only failures
// are ErrContention, and the counter ends at exactly the successes.
func TestSimulation(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	policy, err := retry.ExponentialBackoff(3*time.Millisecond, 3, 0)
	require.NoError(t, err)

	const threads, executions = 20, 50
	var optimistic, promoted, failures, errs, successes atomic.Int64
	var wg sync.WaitGroup
	for range threads {
		c := itest.Connect(t, shared, itest.Opts{NS: ns})
		dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(policy),
			counter.WithPromotedLock(counter.PromotedLock{Path: "/lock", RetryPolicy: policy}))
		wg.Go(func() {
			previous := int64(-1)
			for range executions {
				time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond)
				r, err := dal.Increment(ctx)
				switch {
				case err == nil:
					if r.PostValue <= previous {
						errs.Add(1)
					}
					previous = r.PostValue
					successes.Add(1)
				case errors.Is(err, counter.ErrContention):
					failures.Add(1)
				default:
					t.Errorf("increment: %v", err)
				}
				optimistic.Add(int64(r.Stats.OptimisticTries))
				promoted.Add(int64(r.Stats.PromotedTries))
			}
		})
	}
	wg.Wait()
	t.Logf("optimistic tries %d, promoted tries %d, failures %d, errors %d, successes %d",
		optimistic.Load(), promoted.Load(), failures.Load(), errs.Load(), successes.Load())
	require.Zero(t, errs.Load())
	require.Positive(t, optimistic.Load())
	require.Positive(t, promoted.Load())

	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	v, version := value(t, ctx, newCounter(t, c, "/counter"))
	require.Equal(t, successes.Load(), v, "every success counted once, no failure counted")
	require.EqualValues(t, v, version, "one version per increment (the node was made empty)")
	require.Empty(t, itest.Children(t, c, "/lock"), "the lock's nodes were deleted")
}

// TestBasic: increment, decrement, add and subtract from a counter under
// missing parents, each in one optimistic try.
func TestBasic(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	dal := newCounter(t, c, "/foo/bar/counter", counter.WithRetryPolicy(oneTime(t)))

	r, err := dal.Increment(ctx)
	requireResult(t, r, err, 0, 1, 1, 0)
	r, err = dal.Decrement(ctx)
	requireResult(t, r, err, 1, 0, 1, 0)
	r, err = dal.Add(ctx, 10)
	requireResult(t, r, err, 0, 10, 1, 0)
	r, err = dal.Subtract(ctx, 5)
	requireResult(t, r, err, 10, 5, 1, 0)

	// The parents are containers: once the counter is deleted, the server
	// reaps them.
	require.NoError(t, c.Delete(ctx, "/foo/bar/counter", -1))
	itest.Eventually(t, 10*time.Second, "the parents to be reaped", func() bool { return !itest.Exists(t, c, "/foo") })
}
