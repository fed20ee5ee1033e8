package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/queue"
)

// holdingConsumer starts a lock-safe consumer of q on its own session whose
// handler holds the first item it gets until the test ends, and waits
// until it has it.
func holdingConsumer(t *testing.T, ns, p string) {
	t.Helper()
	q, err := queue.New(connect(t, ns), p, queue.WithLockPath(p+"-locks"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	got, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_ = q.Consume(ctx, func(hctx context.Context, _ *queue.Item) error {
			close(got)
			<-hctx.Done()
			return hctx.Err()
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = q.Close(context.Background())
	})
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the consumer took no item")
	}
}

func TestQueue(t *testing.T) {
	ns := namespace(t)
	ctx := ctxT(t, time.Minute)
	c := connect(t, ns)
	q, err := queue.New(c, "/jobs", queue.WithLockPath("/jobs-locks"))
	require.NoError(t, err)
	for _, s := range []string{"a", "b", "c"} {
		require.NoError(t, q.Put(ctx, []byte(s)))
	}
	holdingConsumer(t, ns, "/jobs")
	holdingConsumer(t, ns, "/jobs")

	r := zkr(t, ns, "queue", "--lock-path", "/jobs-locks", "/jobs")
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("zkr queue:\n%s", r.stdout)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Equal(t, "/jobs  queue  3 items  lock path /jobs-locks", lines[0])
	require.Regexp(t, `^oldest\s+queue-0000000000\s+age \S+$`, lines[1])
	require.Regexp(t, `^next\s+queue-0000000000\s+age \S+$`, lines[2])
	require.Equal(t, "held: 2 items", lines[3])
	require.Regexp(t, `^  NODE\s+SESSION\s+AGE\s+DATA$`, lines[4])
	require.Regexp(t, `^  queue-000000000[01]\s+0x[0-9a-f]+\s+\S+\s+.*zkrecipes-queue`, lines[5])
	require.Equal(t, "consumers: 2 (0 idle) under /jobs-consumers", lines[7])
	require.Regexp(t, `^  _c_[0-9a-f-]{36}-consumer-000000000[01]\s+0x[0-9a-f]+\s+\S+\s+.*pid=`, lines[9])

	r = zkr(t, ns, "queue", "--json", "--lock-path", "/jobs-locks", "/jobs")
	require.Equal(t, 0, r.code, r.stderr)
	var raw map[string]any // the documented field names, spelled out
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &raw), r.stdout)
	for _, f := range []string{"path", "kind", "lock_path", "consumer_path", "items", "oldest", "next", "held", "consumers", "idle", "foreign"} {
		require.Contains(t, raw, f)
	}
	var v QueueView
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	require.Equal(t, 3, v.Items)
	require.Len(t, v.Held, 2)
	require.Len(t, v.Consumers, 2)
	require.Equal(t, "queue-0000000000", v.Oldest.Name)
	require.GreaterOrEqual(t, v.Oldest.AgeSeconds, 0.0)
	held := []string{v.Held[0].Session, v.Held[1].Session}
	require.ElementsMatch(t, held, []string{v.Consumers[0].Session, v.Consumers[1].Session}, "each consumer holds an item")
	require.NotContains(t, held, sessionHex(c.Session().ID()), "the producer holds nothing")

	// A priority queue's next item is its best priority, not its oldest.
	p, err := queue.NewPriority(c, "/prio")
	require.NoError(t, err)
	require.NoError(t, p.Put(ctx, 5, []byte("later")))
	require.NoError(t, p.Put(ctx, -2, []byte("first")))
	r = zkr(t, ns, "queue", "--kind", "priority", "--json", "/prio")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v))
	require.Equal(t, int32(5), *v.Oldest.Priority)
	require.Equal(t, int32(-2), *v.Next.Priority)
	r = zkr(t, ns, "queue", "--kind", "priority", "/prio")
	require.Regexp(t, `(?m)^next\s+queue-0FFFFFFFE0000000001\s+age \S+\s+priority -2$`, r.stdout)

	// A delay queue's next item says when it is due.
	d, err := queue.NewDelay(c, "/mail")
	require.NoError(t, err)
	require.NoError(t, d.Put(ctx, time.Hour, []byte("x")))
	r = zkr(t, ns, "queue", "--kind", "delay", "/mail")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^next\s+queue-\|[0-9A-F]+\|0000000000\s+age \S+\s+due in (59m|1h)`, r.stdout)

	// An empty queue's node is reaped: a missing path is an empty queue.
	r = zkr(t, ns, "queue", "/none")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "/none  queue  0 items\nconsumers: 0 (0 idle) under /none-consumers\n", r.stdout)

	requireOneLineError(t, zkr(t, ns, "queue", "--kind", "stack", "/jobs"), 2)
	requireOneLineError(t, zkr(t, ns, "queue", "jobs"), 2)
	requireOneLineError(t, zkr(t, ns, "queue", "--lock-path", "locks", "/jobs"), 2)
	requireOneLineError(t, zkr(t, ns, "queue"), 2)
	requireOneLineError(t, zkrNoServer(t, "--zk", "127.0.0.1:1", "--timeout", "1s", "queue", "/q"), 3)
}
