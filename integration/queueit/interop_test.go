package queueit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// curatorQueue is testdata/curator/CuratorQueue.java on Curator's jars.
func curatorQueue(t *testing.T) itest.Java {
	return itest.Java{
		Source:    "testdata/curator/CuratorQueue.java",
		Class:     "CuratorQueue",
		Classpath: itest.Classpath(t, itest.CuratorJars...),
	}
}

// java starts the program on kind's queue at ns+path (lock path ns+lock, or
// none for ""), waiting for its line starting with ready.
func java(t *testing.T, ctx context.Context, ready, ns, kind, path, lock string, args ...string) *itest.JavaProc {
	t.Helper()
	lp := "-"
	if lock != "" {
		lp = ns + lock
	}
	all := append([]string{shared.ConnectString(), kind, ns + path, lp}, args...)
	return curatorQueue(t).Start(t, ctx, ready, all...)
}

// javaGot is what a consume run of the program printed: each item and the
// thread that got it.
func javaGot(t *testing.T, out string) []string {
	t.Helper()
	var items []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "curator: got="); ok {
			items = append(items, rest[:strings.LastIndex(rest, " by=")])
		}
	}
	return items
}

// exactlyOnce requires that got holds each of want exactly once.
func exactlyOnce(t *testing.T, want, got []string) {
	t.Helper()
	count := map[string]int{}
	for _, g := range got {
		count[g]++
	}
	var missing, twice, unknown []string
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
		switch count[w] {
		case 0:
			missing = append(missing, w)
		case 1:
		default:
			twice = append(twice, fmt.Sprintf("%s x%d", w, count[w]))
		}
	}
	for g := range count {
		if !wanted[g] {
			unknown = append(unknown, g)
		}
	}
	require.Empty(t, missing, "items never delivered")
	require.Empty(t, twice, "items delivered more than once")
	require.Empty(t, unknown, "items nobody put")
}

// prefixed is prefix+"0".."n-1".
func prefixed(prefix string, n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// TestCuratorProducerGoConsumers: Curator 5.4 puts 400 items on a
// lock-safe DistributedQueue (one by one, then 100 more in nodes of 10 with
// putMulti); two Go consumers, each a session of its own, take every one
// exactly once, and no node is left in the queue or the lock path.
func TestCuratorProducerGoConsumers(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	var mu sync.Mutex
	var got []string
	for range 2 {
		q := newQueue(t, connect(t, shared, ns), "/queue", queue.WithLockPath("/locks"))
		consumingLoop(t, q.Consume, func(_ context.Context, it *queue.Item) error {
			mu.Lock()
			got = append(got, string(it.Data))
			mu.Unlock()
			return nil
		})
	}
	java(t, ctx, "curator: produced", ns, "queue", "/queue", "/locks", "produce", "400", "j").Output(t)
	java(t, ctx, "curator: produced", ns, "queue", "/queue", "/locks", "produce", "100", "m", "10").Output(t)
	want := append(prefixed("j", 400), prefixed("m", 100)...)
	itest.Eventually(t, time.Minute, "500 items consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= len(want)
	})
	mu.Lock()
	exactlyOnce(t, want, got)
	mu.Unlock()
	admin := connect(t, shared, ns)
	requireEmpty(t, admin, "/queue", "/locks")
}

// TestGoProducerCuratorConsumers: recipes/queue puts 400 items (and 100
// more in nodes of 10 with PutMulti) on a lock-safe queue; two Curator
// consumers take every one exactly once.
func TestGoProducerCuratorConsumers(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := connect(t, shared, ns)
	p := java(t, ctx, "curator: ready", ns, "queue", "/queue", "/locks", "consume", "500", "2")
	q := newQueue(t, c, "/queue", queue.WithLockPath("/locks"))
	for _, s := range prefixed("g", 400) {
		require.NoError(t, q.Put(ctx, []byte(s)))
	}
	for i := 0; i < 100; i += 10 {
		var items [][]byte
		for _, s := range prefixed("m", 100)[i : i+10] {
			items = append(items, []byte(s))
		}
		require.NoError(t, q.PutMulti(ctx, items...))
	}
	out := p.Output(t)
	exactlyOnce(t, append(prefixed("g", 400), prefixed("m", 100)...), javaGot(t, out))
	requireEmpty(t, c, "/queue", "/locks")
}

// TestMixedProducersAndConsumers: a Curator producer and a Go producer put
// 300 items each on one lock-safe queue at the same time, while two
// Curator consumers and two Go consumers take them: every item is taken
// exactly once, by one side or the other.
func TestMixedProducersAndConsumers(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	admin := connect(t, shared, ns)
	var mu sync.Mutex
	var goGot []string
	for range 2 {
		q := newQueue(t, connect(t, shared, ns), "/queue", queue.WithLockPath("/locks"))
		consumingLoop(t, q.Consume, func(_ context.Context, it *queue.Item) error {
			mu.Lock()
			goGot = append(goGot, string(it.Data))
			mu.Unlock()
			time.Sleep(10 * time.Millisecond) // give the Java consumers their share
			return nil
		})
	}
	javaConsumer := java(t, ctx, "curator: ready", ns, "queue", "/queue", "/locks", "consume", "600", "2", ns+"/stop")
	javaProducer := java(t, ctx, "curator: producing", ns, "queue", "/queue", "/locks", "produce", "300", "j")
	q := newQueue(t, connect(t, shared, ns), "/queue", queue.WithLockPath("/locks"))
	for _, s := range prefixed("g", 300) {
		require.NoError(t, q.Put(ctx, []byte(s)))
	}
	javaProducer.Output(t)
	itest.Eventually(t, time.Minute, "every item consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(goGot)+len(javaGot(t, javaConsumer.Printed())) >= 600
	})
	_, err := admin.Create(ctx, "/stop", nil, 0)
	require.NoError(t, err)
	jGot := javaGot(t, javaConsumer.Output(t))
	mu.Lock()
	defer mu.Unlock()
	exactlyOnce(t, append(prefixed("j", 300), prefixed("g", 300)...), append(append([]string(nil), goGot...), jGot...))
	t.Logf("Go consumers took %d, Curator's %d", len(goGot), len(jGot))
	require.NotEmpty(t, goGot)
	require.NotEmpty(t, jGot)
	requireEmpty(t, admin, "/queue", "/locks")
}
