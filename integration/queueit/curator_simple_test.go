package queueit

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The ports of Curator's TestSimpleDistributedQueue, each on one server
// and on the ensemble: Curator's remove and poll are Poll (ErrEmpty for
// NoSuchElementException), element and peek are Peek, poll with a timeout
// is Take with a deadline.

const testString = "Hello World"

func newSimple(t *testing.T, c clientT, path string) *queue.Simple {
	t.Helper()
	q, err := queue.NewSimple(c, path)
	require.NoError(t, err)
	closeAtEnd(t, q.Close)
	return q
}

// simpleHandles are Simple handles on path, each on a client of its own,
// and the first one's client.
func simpleHandles(t *testing.T, cl *zktest.Cluster, path string, n int) ([]*queue.Simple, clientT) {
	t.Helper()
	ns := itest.Namespace(t)
	var qs []*queue.Simple
	var first clientT
	for i := range n {
		c := connect(t, cl, ns)
		if i == 0 {
			first = c
		}
		qs = append(qs, newSimple(t, c, path))
	}
	return qs, first
}

// offerN offers testString+i for i < n in order. Past the first ten, the
// items are made 100 at a time in one transaction each (as Offer makes
// them: "qn-" sequential nodes with the raw data; a transaction keeps its
// creates' order), so that the 1,000-item scenarios spend their time on
// the takes.
func offerN(t *testing.T, ctx context.Context, c clientT, q *queue.Simple, n int) {
	t.Helper()
	for i := range min(n, 10) {
		require.NoError(t, q.Offer(ctx, []byte(testString+strconv.Itoa(i))))
	}
	for i := 10; i < n; i += 100 {
		var ops []any
		for k := i; k < min(i+100, n); k++ {
			ops = append(ops, &zk.CreateRequest{Path: q.Path() + "/qn-", Data: []byte(testString + strconv.Itoa(k)), Flags: zk.FlagSequence})
		}
		_, err := c.Multi(ctx, ops...)
		require.NoError(t, err)
	}
}

// TestHangFromContainerLoss (CURATOR-308): the queue's node is a container,
// reaped by the server (every 500 ms here) whenever a taker empties it; a
// taker waiting meanwhile still gets every item offered after.
func TestHangFromContainerLoss(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		q := first(simpleHandles(t, cl, "/queue", 1))
		ctx := itest.Ctx(t, time.Minute)
		const items = 3
		var wg sync.WaitGroup
		wg.Go(func() {
			for i := range items {
				if err := q.Offer(ctx, []byte{byte(i)}); err != nil {
					t.Errorf("offer %d: %v", i, err)
				}
				time.Sleep(700 * time.Millisecond) // the emptied container is reaped meanwhile
			}
		})
		for i := range items {
			tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			data, err := q.Take(tctx)
			cancel()
			require.NoError(t, err, "take %d", i)
			require.Equal(t, []byte{byte(i)}, data)
		}
		wg.Wait()
	})
}

// TestPollWithTimeout: a Take on an empty queue with a deadline ends with
// the deadline (Curator's poll(3 s) returns null; here 500 ms).
func TestPollWithTimeout(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		q := first(simpleHandles(t, cl, "/testOffer1", 1))
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		data, err := q.Take(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Nil(t, data)
	})
}

// TestOffer1: offer then Poll on one handle.
func TestOffer1(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		q := first(simpleHandles(t, cl, "/testOffer1", 1))
		ctx := itest.Ctx(t, 30*time.Second)
		require.NoError(t, q.Offer(ctx, []byte(testString)))
		data, err := q.Poll(ctx)
		require.NoError(t, err)
		require.Equal(t, testString, string(data))
	})
}

// TestOffer2: offer on one client, Poll on another.
func TestOffer2(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		qs, _ := simpleHandles(t, cl, "/testOffer2", 2)
		ctx := itest.Ctx(t, 30*time.Second)
		require.NoError(t, qs[0].Offer(ctx, []byte(testString)))
		data, err := qs[1].Poll(ctx)
		require.NoError(t, err)
		require.Equal(t, testString, string(data))
	})
}

// TestTake1: offer then Take.
func TestTake1(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		q := first(simpleHandles(t, cl, "/testTake1", 1))
		ctx := itest.Ctx(t, 30*time.Second)
		require.NoError(t, q.Offer(ctx, []byte(testString)))
		data, err := q.Take(ctx)
		require.NoError(t, err)
		require.Equal(t, testString, string(data))
	})
}

// TestRemove1: Poll of an empty queue is ErrEmpty (NoSuchElementException).
func TestRemove1(t *testing.T) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		q := first(simpleHandles(t, cl, "/testRemove1", 1))
		ctx := itest.Ctx(t, 30*time.Second)
		_, err := q.Poll(ctx)
		require.ErrorIs(t, err, queue.ErrEmpty)
		_, err = q.Peek(ctx)
		require.ErrorIs(t, err, queue.ErrEmpty)
	})
}

// createNremoveM offers n items on one client and polls m on another: the
// m-th is the one offered m-th.
func createNremoveM(t *testing.T, dir string, n, m int) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		qs, c := simpleHandles(t, cl, dir, 2)
		ctx := itest.Ctx(t, 2*time.Minute)
		offerN(t, ctx, c, qs[0], n)
		var data []byte
		for i := range m {
			var err error
			data, err = qs[1].Poll(ctx)
			require.NoError(t, err, "poll %d", i)
		}
		require.Equal(t, testString+strconv.Itoa(m-1), string(data))
	})
}

func TestRemove2(t *testing.T) { createNremoveM(t, "/testRemove2", 10, 2) }

func TestRemove3(t *testing.T) { createNremoveM(t, "/testRemove3", 1000, 1000) }

// createNremoveMelement offers n, polls m, and Peek sees the next.
func createNremoveMelement(t *testing.T, dir string, n, m int) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		qs, c := simpleHandles(t, cl, dir, 2)
		ctx := itest.Ctx(t, 2*time.Minute)
		offerN(t, ctx, c, qs[0], n)
		for i := range m {
			_, err := qs[1].Poll(ctx)
			require.NoError(t, err, "poll %d", i)
		}
		data, err := qs[1].Peek(ctx)
		require.NoError(t, err)
		require.Equal(t, testString+strconv.Itoa(m), string(data))
		l, err := qs[1].Len(ctx)
		require.NoError(t, err)
		require.Equal(t, n-m, l, "Peek removed nothing")
	})
}

func TestElement1(t *testing.T) { createNremoveMelement(t, "/testElement1", 1, 0) }

func TestElement2(t *testing.T) { createNremoveMelement(t, "/testElement2", 10, 2) }

func TestElement3(t *testing.T) { createNremoveMelement(t, "/testElement3", 1000, 500) }

func TestElement4(t *testing.T) { createNremoveMelement(t, "/testElement4", 1000, 1000-1) }

// takeWait: a Take on an empty queue waits, and gets the item offered
// meanwhile; attempts times in a row.
func takeWait(t *testing.T, dir string, attempts int) {
	onBoth(t, func(t *testing.T, cl *zktest.Cluster) {
		itest.NoLeaks(t)
		q := first(simpleHandles(t, cl, dir, 1))
		ctx := itest.Ctx(t, time.Minute)
		for i := range attempts {
			want := fmt.Sprintf("%s%d", testString, i)
			type result struct {
				data []byte
				err  error
			}
			res := make(chan result, 1)
			go func() {
				data, err := q.Take(ctx)
				res <- result{data, err}
			}()
			itest.Pending(t, res, 200*time.Millisecond, "Take of an empty queue")
			require.NoError(t, q.Offer(ctx, []byte(want)))
			r := itest.Await(t, res, 10*time.Second, "Take after the offer")
			require.NoError(t, r.err)
			require.Equal(t, want, string(r.data))
		}
	})
}

func TestTakeWait1(t *testing.T) { takeWait(t, "/testTakeWait1", 1) }

func TestTakeWait2(t *testing.T) { takeWait(t, "/testTakeWait2", 2) }

func first(qs []*queue.Simple, _ clientT) *queue.Simple { return qs[0] }
