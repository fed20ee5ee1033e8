package integration

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// semCancelOnFire cancels the returned context when fired closes.
func semCancelOnFire(t *testing.T, parent context.Context, fired <-chan struct{}) context.Context {
	ctx, cancel := context.WithCancel(parent)
	t.Cleanup(cancel)
	go func() {
		select {
		case <-fired:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx
}

// TestSemaphoreCancelAfterLockCreate cancels an acquire while the create of
// its locks-mutex node is on the wire (the server makes the node, the reply
// never arrives): the acquire returns the cancellation and leaves no node in
// locks/ or leases/ (checked on the server).
func TestSemaphoreCancelAfterLockCreate(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	_, holder := semStuckHolder(t, ctx, ns, 2)
	link := newLink(t)
	s := semNew(t, connect(t, clientOpts{ns: ns, link: link}), 2)

	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	_, err := s.Acquire(semCancelOnFire(t, ctx, fired))
	require.True(t, closed(fired), "the create never went out (err %v)", err)
	require.ErrorIs(t, err, context.Canceled)
	eventually(t, 10*time.Second, "only the holder's lease node, no lock node", func() bool {
		leases := children(t, obs, semLeases)
		return len(children(t, obs, semLocks)) == 0 && len(leases) == 1 && leases[0] == path.Base(holder.Node())
	})

	// The client recovered and the semaphore works.
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	semReleaseAll(t, ctx, append([]*semaphore.Lease{l}, holder))
	semNoNodes(t, obs)
}

// TestSemaphoreCancelAfterLeaseCreate cancels an acquire while the create of
// its lease node is on the wire (it holds the locks mutex by then): it
// returns the cancellation and leaves no node in locks/ or leases/.
func TestSemaphoreCancelAfterLeaseCreate(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	_, holder := semStuckHolder(t, ctx, ns, 1)
	// A first waiter holds the locks mutex while it waits for a lease...
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	wres := semAcquireAsync(wctx, semNew(t, connect(t, clientOpts{ns: ns}), 1), 1)
	semWaiting(t, obs, 2)
	// ...so the acquire under test queues for the mutex (its lock node made).
	link := newLink(t)
	s := semNew(t, connect(t, clientOpts{ns: ns, link: link}), 1)
	actx, acancel := context.WithCancel(ctx)
	defer acancel()
	res := semAcquireAsync(actx, s, 1)
	waitChildren(t, obs, semLocks, 2)
	fired := link.DropReplyTo(faultlink.OpCreate, faultlink.OpCreate2)
	go func() {
		select {
		case <-fired:
			acancel()
		case <-actx.Done():
		}
	}()
	// The first waiter gives up: the mutex passes to the acquire under test,
	// whose lease node's create is dropped.
	wcancel()
	require.ErrorIs(t, await(t, wres, 10*time.Second, "first waiter").err, context.Canceled)
	r := await(t, res, 20*time.Second, "acquire under test")
	require.True(t, closed(fired), "the lease create never went out (err %v)", r.err)
	require.ErrorIs(t, r.err, context.Canceled)
	eventually(t, 10*time.Second, "only the holder's lease node, no lock node", func() bool {
		leases := children(t, obs, semLeases)
		return len(children(t, obs, semLocks)) == 0 && len(leases) == 1 && leases[0] == path.Base(holder.Node())
	})
	require.NoError(t, holder.Release(ctx))
	semNoNodes(t, obs)
}

// TestSemaphoreLostBeforeRegrant partitions a lease holder (its link
// blackholed) past its session: its Lost closes before another client is
// granted the lease.
func TestSemaphoreLostBeforeRegrant(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 60*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	link := newLink(t)
	hc := connect(t, clientOpts{ns: ns, link: link, timeout: 1500 * time.Millisecond})
	held, err := semNew(t, hc, 1).Acquire(ctx)
	require.NoError(t, err)
	_, err = held.Token(ctx)
	require.NoError(t, err)

	lostAt := make(chan time.Time, 1)
	go func() {
		<-held.Lost()
		lostAt <- time.Now()
	}()
	res := semAcquireAsync(ctx, semNew(t, connect(t, clientOpts{ns: ns}), 1), 1)
	semWaiting(t, obs, 2)
	cut := time.Now()
	link.Blackhole()
	r := await(t, res, 20*time.Second, "the other client's acquire")
	grantAt := time.Now()
	require.NoError(t, r.err)
	lost := await(t, lostAt, time.Second, "the holder's Lost")
	t.Logf("blackholed at 0; Lost closed at %v; the other client granted at %v (margin %v)",
		lost.Sub(cut), grantAt.Sub(cut), grantAt.Sub(lost))
	require.True(t, lost.Before(grantAt), "Lost closed after the lease was granted to another client")
	link.Restore()
	semReleaseAll(t, ctx, r.leases)
	_ = held.Release(ctx) // its node went with its session
	semNoNodes(t, obs)
}
