package queueit

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// Curator's name encodings of the other queues, both ways: what Curator
// puts comes out of a Go consumer in Curator's order, and the reverse.

// javaPriority is the priority the Java program gives item i.
func javaPriority(i int) int32 { return int32((i*37)%101 - 50) }

// byPriority is prefix0..prefix<n-1> in the order of their priorities.
func byPriority(prefix string, n int) []string {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return int(javaPriority(a) - javaPriority(b)) })
	out := make([]string, n)
	for k, i := range idx {
		out[k] = prefix + strconv.Itoa(i)
	}
	return out
}

// goConsume consumes n items from consume and returns them in order.
func goConsume(t *testing.T, consume func(context.Context, queue.Handler) error, n int, check func(*queue.Item)) []string {
	t.Helper()
	got := newConsumed()
	var mu sync.Mutex
	consumingLoop(t, consume, func(ctx context.Context, it *queue.Item) error {
		mu.Lock()
		if check != nil {
			check(it)
		}
		mu.Unlock()
		got.add(string(it.Data))
		return nil
	})
	return got.wait(t, n, 30*time.Second)
}

// TestCuratorPriorityInterop: Curator's DistributedPriorityQueue and
// recipes/queue's PriorityQueue take each other's items lowest priority
// first, with each item's priority read from its node's name.
func TestCuratorPriorityInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := connect(t, shared, ns)
	java(t, ctx, "curator: produced", ns, "priority", "/prio", "", "produce", "50", "j").Output(t)
	q := newPriorityQueue(t, c, "/prio")
	got := goConsume(t, q.Consume, 50, func(it *queue.Item) {
		i, _ := strconv.Atoi(strings.TrimPrefix(string(it.Data), "j"))
		require.Equal(t, javaPriority(i), it.Priority, "item %s", it.Data)
	})
	require.Equal(t, byPriority("j", 50), got)

	p2 := newPriorityQueue(t, c, "/prio2")
	for i := range 40 {
		require.NoError(t, p2.Put(ctx, javaPriority(i), []byte("g"+strconv.Itoa(i))))
	}
	var ten [][]byte
	for i := 40; i < 50; i++ {
		ten = append(ten, []byte("g"+strconv.Itoa(i)))
	}
	require.NoError(t, p2.PutMulti(ctx, javaPriority(40), ten...))
	out := java(t, ctx, "curator: ready", ns, "priority", "/prio2", "", "consume", "50", "1").Output(t)
	want := byPriority("g", 40)
	k := slices.IndexFunc(want, func(s string) bool {
		i, _ := strconv.Atoi(s[1:])
		return javaPriority(i) > javaPriority(40)
	})
	if k < 0 {
		k = len(want)
	}
	want = slices.Concat(want[:k], prefixed("g", 50)[40:], want[k:])
	require.Equal(t, want, javaGot(t, out))
}

// TestCuratorDelayInterop: items due in the reverse of their put order
// come out of the other side's consumer latest put first.
func TestCuratorDelayInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := connect(t, shared, ns)
	const n = 20
	java(t, ctx, "curator: produced", ns, "delay", "/delay", "", "produce", strconv.Itoa(n), "j").Output(t)
	q := newDelayQueue(t, c, "/delay")
	got := goConsume(t, q.Consume, n, func(it *queue.Item) { require.False(t, it.Due.IsZero()) })
	want := prefixed("j", n)
	slices.Reverse(want)
	require.Equal(t, want, got)

	d2 := newDelayQueue(t, c, "/delay2")
	start := time.Now()
	for i := range n {
		require.NoError(t, d2.PutAt(ctx, start.Add(time.Duration(n-i)*5*time.Millisecond), []byte("g"+strconv.Itoa(i))))
	}
	want = prefixed("g", n)
	slices.Reverse(want)
	require.Equal(t, want, javaGot(t, java(t, ctx, "curator: ready", ns, "delay", "/delay2", "", "consume", strconv.Itoa(n), "1").Output(t)))
}

// TestCuratorIDInterop: each side removes by id what the other put, and
// takes the rest in put order, with their ids.
func TestCuratorIDInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := connect(t, shared, ns)
	java(t, ctx, "curator: produced", ns, "id", "/ids", "/idlocks", "produce", "20", "j").Output(t)
	q := newIDQueue(t, c, "/ids", queue.WithLockPath("/idlocks"))
	n, err := q.Remove(ctx, "id3")
	require.NoError(t, err)
	require.Equal(t, 2, n, "items 3 and 13")
	want := slices.DeleteFunc(prefixed("j", 20), func(s string) bool { return s == "j3" || s == "j13" })
	got := goConsume(t, q.Consume, 18, func(it *queue.Item) {
		i, _ := strconv.Atoi(strings.TrimPrefix(string(it.Data), "j"))
		require.Equal(t, "id"+strconv.Itoa(i%10), it.ID)
	})
	require.Equal(t, want, got)

	q2 := newIDQueue(t, c, "/ids2", queue.WithLockPath("/idlocks2"))
	for i := range 20 {
		require.NoError(t, q2.Put(ctx, "id"+strconv.Itoa(i%10), []byte("g"+strconv.Itoa(i))))
	}
	out := java(t, ctx, "curator: removed", ns, "id", "/ids2", "/idlocks2", "remove", "id4").Output(t)
	require.Contains(t, out, "curator: removed=2")
	want = slices.DeleteFunc(prefixed("g", 20), func(s string) bool { return s == "g4" || s == "g14" })
	require.Equal(t, want, javaGot(t, java(t, ctx, "curator: ready", ns, "id", "/ids2", "/idlocks2", "consume", "18", "1").Output(t)))
}

// TestCuratorSimpleInterop: Curator's SimpleDistributedQueue and Simple
// take each other's raw items in order.
func TestCuratorSimpleInterop(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	c := connect(t, shared, ns)
	java(t, ctx, "curator: produced", ns, "simple", "/simple", "", "produce", "20", "j").Output(t)
	s := newSimple(t, c, "/simple")
	var got []string
	for range 20 {
		data, err := s.Take(ctx)
		require.NoError(t, err)
		got = append(got, string(data))
	}
	require.Equal(t, prefixed("j", 20), got)

	s2 := newSimple(t, c, "/simple2")
	for _, v := range prefixed("g", 20) {
		require.NoError(t, s2.Offer(ctx, []byte(v)))
	}
	require.Equal(t, prefixed("g", 20), javaGot(t, java(t, ctx, "curator: ready", ns, "simple", "/simple2", "", "consume", "20", "1").Output(t)))
}
