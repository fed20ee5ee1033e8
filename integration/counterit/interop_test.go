package counterit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
	"github.com/go-zkrecipes/zkrecipes/retry"
)

// curatorCounter is testdata/curator/CuratorCounter.java on Curator's jars.
func curatorCounter(t *testing.T) itest.Java {
	return itest.Java{
		Source:    "testdata/curator/CuratorCounter.java",
		Class:     "CuratorCounter",
		Classpath: itest.Classpath(t, itest.CuratorJars...),
	}
}

// curator runs commands of the Java program on the counter at ns+"/counter"
// (one JVM, one client) and returns what it printed.
func curator(t *testing.T, ctx context.Context, ns string, commands ...string) string {
	t.Helper()
	all := append([]string{shared.ConnectString(), ns + "/counter", ns + "/lock"}, commands...)
	return curatorCounter(t).Start(t, ctx, "curator: ", all...).Output(t)
}

// fields are the values of key=... in the program's output, in order.
func fields(out, key string) []string {
	var vs []string
	for _, w := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(w, key+"="); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// field is the one value of key=... in the program's output.
func field(t *testing.T, out, key string) string {
	t.Helper()
	vs := fields(out, key)
	require.Len(t, vs, 1, "%s= in the java output:\n%s", key, out)
	return vs[0]
}

func num(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

// TestCuratorReadsAndWritesTheSameBytes: Go and Curator 5.4's
// DistributedAtomicLong read each other's values, as 8 big-endian bytes on
// the node: negative, large, wrapped around, initialized by either side,
// and an empty node reads as 0 on both.
func TestCuratorReadsAndWritesTheSameBytes(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 2*time.Minute)
	dal := newCounter(t, c, "/counter")
	big := int64(1)<<40 + 7

	out := curator(t, ctx, ns, "initialize", "5", "get", "set", strconv.FormatInt(big, 10))
	require.Equal(t, "true", field(t, out, "initialized"))
	require.Equal(t, "5", field(t, out, "value"))
	ok, err := dal.Initialize(ctx, 9)
	require.NoError(t, err)
	require.False(t, ok, "Curator initialized it")
	data, _, err := c.Get(ctx, "/counter")
	require.NoError(t, err)
	require.Equal(t, binary.BigEndian.AppendUint64(nil, uint64(big)), data, "Curator's bytes")
	v, _ := value(t, ctx, dal)
	require.Equal(t, big, v)

	require.NoError(t, dal.ForceSet(ctx, -42))
	out = curator(t, ctx, ns, "get", "set", strconv.FormatInt(math.MaxInt64, 10), "add", "1")
	require.Equal(t, "-42", field(t, out, "value"))
	require.Equal(t, "true", field(t, out, "succeeded"))
	require.Equal(t, strconv.FormatInt(math.MinInt64, 10), field(t, out, "post"), "Java's long wraps around")
	r, err := dal.Decrement(ctx)
	requireResult(t, r, err, math.MinInt64, math.MaxInt64, 2, 0) // a write over the version of its ForceSet, then a fresh one

	_, err = c.Set(ctx, "/counter", nil, -1)
	require.NoError(t, err)
	require.Equal(t, "0", field(t, curator(t, ctx, ns, "get"), "value"), "empty reads as 0")
	v, _ = value(t, ctx, dal)
	require.Zero(t, v)
}

// TestDistributedAtomicLongCuratorInterop: Curator 5.4's
// DistributedAtomicLong (4 threads, each its own session, 500 increments
// each) and recipes/counter (4 goroutines, each its own session, 500
// each) increment one counter at the same time, both optimistic with
// ExponentialBackoff(5 ms, 5) and promoted to the same lock path (Curator's
// InterProcessMutex and recipes/mutex: one queue). Every increment that did
// not succeed is done again; the counter ends at exactly 4,000, their
// values interleave, and the lock path is left empty.
func TestDistributedAtomicLongCuratorInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	admin := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 3*time.Minute)
	const threads, n = 4, 500
	java := curatorCounter(t).Start(t, ctx, "curator: ready", shared.ConnectString(), ns+"/counter", ns+"/lock",
		"increment", strconv.Itoa(threads), strconv.Itoa(n), ns+"/start")

	policy, err := retry.ExponentialBackoff(5*time.Millisecond, 5, 0)
	require.NoError(t, err)
	var mu sync.Mutex
	var goValues []int64
	goTries, goFailures := 0, 0
	var ready, wg sync.WaitGroup
	start := make(chan struct{})
	for range threads {
		c := itest.Connect(t, shared, itest.Opts{NS: ns})
		dal := newCounter(t, c, "/counter", counter.WithRetryPolicy(policy),
			counter.WithPromotedLock(counter.PromotedLock{Path: "/lock", RetryPolicy: policy}))
		ready.Add(1)
		wg.Go(func() {
			ready.Done()
			<-start
			for done := 0; done < n; {
				r, err := dal.Increment(ctx)
				mu.Lock()
				goTries += r.Stats.OptimisticTries + r.Stats.PromotedTries
				switch {
				case err == nil:
					goValues = append(goValues, r.PostValue)
					done++
				case errors.Is(err, counter.ErrContention):
					goFailures++
				default:
					t.Errorf("increment: %v", err)
					done = n
				}
				mu.Unlock()
			}
		})
	}
	ready.Wait()
	_, err = admin.Create(ctx, "/start", nil, 0)
	require.NoError(t, err)
	close(start)
	wg.Wait()
	out := java.Output(t)
	t.Log(strings.TrimSpace(out))

	v, version := value(t, ctx, newCounter(t, admin, "/counter"))
	require.EqualValues(t, 2*threads*n, v, "every increment of both sides counted once")
	require.EqualValues(t, v, version)
	require.EqualValues(t, threads*n, num(t, field(t, out, "successes")))
	require.Len(t, goValues, threads*n)
	jmin, jmax := num(t, field(t, out, "min")), num(t, field(t, out, "max"))
	gmin, gmax := slicesMin(goValues), slicesMax(goValues)
	require.True(t, gmin < jmax && jmin < gmax, "the two sides' increments interleave (Go %d..%d, Java %d..%d)", gmin, gmax, jmin, jmax)
	t.Logf("Go: %d increments in %d tries (%d lost every try and were done again); values Go %d..%d, Java %d..%d",
		len(goValues), goTries, goFailures, gmin, gmax, jmin, jmax)
	require.Empty(t, itest.Children(t, admin, "/lock"), fmt.Sprintf("lock nodes left under %s/lock", ns))
}

func slicesMin(s []int64) int64 {
	m := s[0]
	for _, x := range s {
		m = min(m, x)
	}
	return m
}

func slicesMax(s []int64) int64 {
	m := s[0]
	for _, x := range s {
		m = max(m, x)
	}
	return m
}
