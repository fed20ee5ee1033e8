package counterit

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// TestOneRoundTripPerUpdate: a handle that writes alone reads the node once
// and then sends one setData per increment (Curator sends a getData and a
// setData for each), counted on its link.
func TestOneRoundTripPerUpdate(t *testing.T) {
	itest.NoLeaks(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t), Link: link})
	ctx := itest.Ctx(t, 30*time.Second)
	dal := newCounter(t, c, "/counter")
	ok, err := dal.Initialize(ctx, 0)
	require.NoError(t, err)
	require.True(t, ok)

	gets, sets := link.Requests(faultlink.OpGetData), link.Requests(faultlink.OpSetData)
	for i := range 100 {
		r, err := dal.Increment(ctx)
		requireResult(t, r, err, int64(i), int64(i+1), 1, 0)
		require.EqualValues(t, i+1, r.Version)
	}
	require.EqualValues(t, 100, link.Requests(faultlink.OpSetData)-sets, "setData requests")
	require.Zero(t, link.Requests(faultlink.OpGetData)-gets, "getData requests: Initialize's create told the version")
}

// TestStaleVersionCostsNoRetry: two handles take turns, so each one's
// remembered version is always old. With no retry allowed (NTimes(0)),
// every increment still succeeds: the write over the old version fails,
// and the read and write that follow are not a retry. After that one
// wasted write each handle reads first (as Curator always does); once a
// handle writes alone again, it finds its own version still there and goes
// back to writing without a read.
func TestStaleVersionCostsNoRetry(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 30*time.Second)
	never, err := retry.NTimes(0, 0)
	require.NoError(t, err)
	link := itest.NewLink(t)
	a := newCounter(t, itest.Connect(t, shared, itest.Opts{NS: ns, Link: link}), "/counter", counter.WithRetryPolicy(never))
	b := newCounter(t, itest.Connect(t, shared, itest.Opts{NS: ns}), "/counter", counter.WithRetryPolicy(never))
	for i := range 20 {
		h := a
		if i%2 == 1 {
			h = b
		}
		r, err := h.Increment(ctx)
		tries := 1 // a first update reads first; and so does every update from the third on
		if i == 2 || i == 3 {
			tries = 2 // the write over the old version, then the fresh one
		}
		requireResult(t, r, err, int64(i), int64(i+1), tries, 0)
	}
	for i := 20; i < 25; i++ {
		gets := link.Requests(faultlink.OpGetData)
		r, err := a.Increment(ctx)
		requireResult(t, r, err, int64(i), int64(i+1), 1, 0)
		reads := link.Requests(faultlink.OpGetData) - gets
		if i < 22 {
			require.EqualValues(t, 1, reads, "increment %d reads first", i)
		} else {
			require.Zero(t, reads, "increment %d writes over its own version", i)
		}
	}
}

// TestSharedHandle: goroutines sharing one handle take turns in the
// process: each increment is one write, never beaten by a sibling.
func TestSharedHandle(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 60*time.Second)
	never, err := retry.NTimes(0, 0)
	require.NoError(t, err)
	dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(never))
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int64]bool{}
	for range 8 {
		wg.Go(func() {
			for range 50 {
				r, err := dal.Increment(ctx)
				if err != nil || r.Stats.OptimisticTries != 1 {
					t.Errorf("increment: %+v, %v", r, err)
					return
				}
				mu.Lock()
				seen[r.PostValue] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	v, version := value(t, ctx, dal)
	require.EqualValues(t, 400, v)
	require.EqualValues(t, 400, version)
	require.Len(t, seen, 400, "each increment returned its own value")
}

// TestWrapsAround: Java's long arithmetic: MaxInt64 + 1 is MinInt64.
func TestWrapsAround(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	ctx := itest.Ctx(t, 30*time.Second)
	dal := newCounter(t, c, "/counter")
	require.NoError(t, dal.ForceSet(ctx, math.MaxInt64))
	r, err := dal.Increment(ctx)
	requireResult(t, r, err, math.MaxInt64, math.MinInt64, 1, 0)
	r, err = dal.Subtract(ctx, 1)
	requireResult(t, r, err, math.MinInt64, math.MaxInt64, 1, 0)
}

// TestLostReply: the reply to an increment's setData is lost (the server
// applies it, the client never hears back): the increment returns a
// *MaybeAppliedError naming the version it wrote over and the value, never
// a retry that would count it twice. The node shows it was applied, and the
// next increment on the handle starts from there.
func TestLostReply(t *testing.T) {
	itest.NoLeaks(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t), Link: link})
	ctx := itest.Ctx(t, 60*time.Second)
	dal := newCounter(t, c, "/counter")
	for range 5 {
		_, err := dal.Increment(ctx)
		require.NoError(t, err)
	}
	fired := link.DropReplyTo(faultlink.OpSetData)
	r, err := dal.Increment(ctx)
	require.True(t, itest.Closed(fired))
	var maybe *counter.MaybeAppliedError
	require.ErrorAs(t, err, &maybe)
	require.ErrorIs(t, err, counter.ErrMaybeApplied)
	require.False(t, retry.IsRetryable(err), "a maybe must not look retryable")
	require.False(t, r.Succeeded)
	require.EqualValues(t, 5, maybe.Version)
	require.EqualValues(t, 6, maybe.Value)
	require.Equal(t, 1, r.Stats.OptimisticTries)

	v, version := value(t, ctx, dal)
	require.EqualValues(t, 6, v, "the server applied the write whose reply was lost")
	require.EqualValues(t, 6, version)
	r, err = dal.Increment(ctx)
	requireResult(t, r, err, 6, 7, 1, 0)
}

// TestLostReplyToRefusedWrite: a write the server refused (its version was
// old) whose reply is lost is a maybe all the same: the client cannot
// know. It is not tried again, not even under the promoted lock, and the
// value shows it did not apply.
func TestLostReplyToRefusedWrite(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns, Link: link})
	ctx := itest.Ctx(t, 60*time.Second)
	never, err := retry.NTimes(0, 0)
	require.NoError(t, err)
	dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(never),
		counter.WithPromotedLock(counter.PromotedLock{Path: "/lock"}))
	other := newCounter(t, itest.Connect(t, shared, itest.Opts{NS: ns}), "/counter")
	_, err = dal.Increment(ctx) // 0 -> 1, version 1 remembered
	require.NoError(t, err)
	_, err = other.Increment(ctx) // 1 -> 2: dal's remembered version is old now
	require.NoError(t, err)

	dropped := link.DropReplyTo(faultlink.OpSetData)
	r, err := dal.Increment(ctx) // writes 2 over version 1: refused, unheard
	require.True(t, itest.Closed(dropped))
	var maybe *counter.MaybeAppliedError
	require.ErrorAs(t, err, &maybe)
	require.EqualValues(t, 1, maybe.Version)
	require.EqualValues(t, 2, maybe.Value)
	require.False(t, r.Succeeded)
	require.Equal(t, 1, r.Stats.OptimisticTries)
	require.Zero(t, r.Stats.PromotedTries)
	v, version := value(t, ctx, dal)
	require.EqualValues(t, 2, v, "the refused write did not apply")
	require.EqualValues(t, 2, version, "version 2 is the other handle's: the maybe's would have been version 2 too")
	require.False(t, itest.Exists(t, c, "/lock"), "no lock was taken")
}

// TestMaybeWhenCtxEnds: a write in flight when ctx ends is a maybe too
// (ctx's error is in the chain); the link is blackholed, so the write is
// never answered.
func TestMaybeWhenCtxEnds(t *testing.T) {
	itest.NoLeaks(t)
	link := itest.NewLink(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t), Link: link, Timeout: 4 * time.Second})
	ctx := itest.Ctx(t, 60*time.Second)
	dal := newCounter(t, c, "/counter")
	_, err := dal.Increment(ctx)
	require.NoError(t, err)

	link.Blackhole()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	r, err := dal.Increment(short)
	cancel()
	require.ErrorIs(t, err, counter.ErrMaybeApplied)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, r.Succeeded)
	link.Restore()

	v, version := value(t, ctx, dal)
	require.Contains(t, []int64{1, 2}, v)
	require.EqualValues(t, v, version)
	r, err = dal.Increment(ctx)
	requireResult(t, r, err, v, v+1, 1, 0)
}

// TestPromotedLockTimeout: with the promoted lock held elsewhere for the
// whole run and no optimistic retry, updates that lose their one
// optimistic try wait 200 ms for the lock and fail with ErrContention: not
// applied. The counter ends at exactly the successes.
func TestPromotedLockTimeout(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 90*time.Second)
	holder, err := mutex.New(itest.Connect(t, shared, itest.Opts{NS: ns}), "/lock")
	require.NoError(t, err)
	require.NoError(t, holder.Lock(ctx))
	never, err := retry.NTimes(0, 0)
	require.NoError(t, err)

	var mu sync.Mutex
	successes, timeouts := 0, 0
	deadline := time.Now().Add(30 * time.Second)
	for timeouts == 0 && time.Now().Before(deadline) {
		var wg sync.WaitGroup
		for range 6 {
			c := itest.Connect(t, shared, itest.Opts{NS: ns})
			dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(never),
				counter.WithPromotedLock(counter.PromotedLock{Path: "/lock", Timeout: 200 * time.Millisecond}))
			wg.Go(func() {
				for range 10 {
					r, err := dal.Increment(ctx)
					mu.Lock()
					switch {
					case err == nil:
						successes++
					case errors.Is(err, counter.ErrContention):
						timeouts++
						require.False(t, r.Succeeded)
						require.Zero(t, r.Stats.PromotedTries, "no try without the lock")
						require.Greater(t, r.Stats.PromotedTime, 150*time.Millisecond)
					default:
						t.Errorf("increment: %v", err)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	require.Positive(t, timeouts, "no increment lost its optimistic try in 30 s")
	v, _ := value(t, ctx, newCounter(t, itest.Connect(t, shared, itest.Opts{NS: ns}), "/counter"))
	require.EqualValues(t, successes, v)
	t.Logf("%d increments succeeded, %d timed out on the lock", successes, timeouts)
	require.NoError(t, holder.Unlock(ctx))
}

// TestRememberedMissingNodeIsNoLicence: a handle that last saw the node
// missing (a CompareAndSet on a counter never written) must not write over
// that "version" once another handle has made and incremented the node: a
// missing node's version is -1, which ZooKeeper takes as "any version", so
// a write over it would replace the value. The chaos suite's counter
// workload lost 13 increments so (TestChaosCounter, CI of the wire switch).
func TestRememberedMissingNodeIsNoLicence(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	a := itest.Connect(t, shared, itest.Opts{NS: ns})
	b := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 30*time.Second)
	ca, cb := newCounter(t, a, "/counter"), newCounter(t, b, "/counter")

	r, err := ca.CompareAndSet(ctx, 0, 7)
	require.NoError(t, err)
	require.False(t, r.Succeeded, "CompareAndSet on a missing node")
	for range 5 {
		_, err := cb.Increment(ctx)
		require.NoError(t, err)
	}
	r, err = ca.Increment(ctx)
	requireResult(t, r, err, 5, 6, 1, 0)
	v, version := value(t, ctx, cb)
	require.EqualValues(t, 6, v, "the other handle's 5 increments and this one")
	require.EqualValues(t, 6, version)
}
