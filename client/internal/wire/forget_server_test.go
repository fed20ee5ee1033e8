package wire_test

import (
	"context"
	"io"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

var watchCount = regexp.MustCompile(`zk_watch_count\s+(\d+)`)

// serverWatches returns the total of the server's watches, data and child
// watches alike (four-letter word mntr: zk_watch_count; wchs counts only
// data watches).
func serverWatches(t *testing.T, addr string) int {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(nc, "mntr"); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(io.LimitReader(nc, 64<<10))
	if err != nil {
		t.Fatal(err)
	}
	m := watchCount.FindSubmatch(out)
	if m == nil {
		t.Fatalf("mntr answered %q", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// eventually polls cond until it holds, failing the test after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustCreate(t *testing.T, c *wire.Conn, p string) {
	t.Helper()
	if _, err := c.Create(context.Background(), p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
}

// TestStopWatchRemovesFromServer: a given-up one-shot watch leaves the
// Conn's table at once and the server once its last channel on the path
// is gone; a channel still there keeps the server's watch, and gets the
// event.
func TestStopWatchRemovesFromServer(t *testing.T) {
	ctx := context.Background()
	c, _ := dialTest(t)
	addr := cluster.Addr(0)
	base := serverWatches(t, addr)
	mustCreate(t, c, "/stopw")
	t.Cleanup(func() { _ = c.Delete(context.Background(), "/stopw", -1) })

	_, _, a, err := c.GetW(ctx, "/stopw")
	if err != nil {
		t.Fatal(err)
	}
	_, _, b, err := c.ExistsW(ctx, "/stopw")
	if err != nil {
		t.Fatal(err)
	}
	_, _, k, err := c.ChildrenW(ctx, "/stopw")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "a data and a child watch on the server", func() bool { return serverWatches(t, addr) == base+2 })

	c.StopWatch("/stopw", a) // b still needs the data watch
	c.StopWatch("/stopw", k) // the child watch goes
	if n, _ := c.WatchCount(); n != 1 {
		t.Fatalf("the Conn keeps %d one-shot watches, want 1", n)
	}
	eventually(t, 10*time.Second, "only the data watch left on the server", func() bool { return serverWatches(t, addr) == base+1 })

	if _, err := c.Set(ctx, "/stopw", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-b:
		if ev.Type != zk.EventNodeDataChanged {
			t.Fatalf("the watch kept got %v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch kept got no event")
	}
	select {
	case ev, ok := <-a:
		t.Fatalf("a given-up watch got %v (%v)", ev, ok)
	default:
	}
	if n, _ := c.WatchCount(); n != 0 {
		t.Fatalf("the Conn keeps %d one-shot watches after the event, want 0", n)
	}
	c.StopWatch("/stopw", b) // fired already: nothing to do
	c.StopWatch("/stopw", nil)
	var nilConn *wire.Conn
	nilConn.StopWatch("/stopw", b)
	eventually(t, 10*time.Second, "no watch left on the server", func() bool { return serverWatches(t, addr) == base })
}

// TestAbandonedWatchRequestLeavesNothing: watching reads whose ctx ends
// before the reply leave no channel in the Conn and no watch on the
// server, while a watch set on the same path by a request still in
// flight stands and fires.
func TestAbandonedWatchRequestLeavesNothing(t *testing.T) {
	c, _ := dialTest(t)
	addr := cluster.Addr(0)
	base := serverWatches(t, addr)
	mustCreate(t, c, "/abandonw")
	t.Cleanup(func() { _ = c.Delete(context.Background(), "/abandonw", -1) })

	for range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _, ch, err := c.GetW(ctx, "/abandonw")
			if err == nil {
				c.StopWatch("/abandonw", ch) // the reply won: give it up as a caller would
			}
		}()
		cancel()
		<-done
	}
	eventually(t, 10*time.Second, "no one-shot watch left in the Conn", func() bool { n, _ := c.WatchCount(); return n == 0 })
	eventually(t, 10*time.Second, "no watch left on the server", func() bool { return serverWatches(t, addr) == base })

	// Give-ups and sets racing on one path: whatever the order, a watch
	// that was not given up still fires.
	for i := range 100 {
		_, _, old, err := c.GetW(context.Background(), "/abandonw")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan (<-chan zk.Event), 1)
		go func() {
			_, _, ch, err := c.GetW(context.Background(), "/abandonw")
			if err != nil {
				t.Error(err)
			}
			got <- ch
		}()
		c.StopWatch("/abandonw", old)
		kept := <-got
		if _, err := c.Set(context.Background(), "/abandonw", []byte{byte(i)}, -1); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-kept:
			if ev.Type != zk.EventNodeDataChanged {
				t.Fatalf("round %d: the watch kept got %v", i, ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: a watch set while another on the path was given up never fired", i)
		}
	}
	eventually(t, 10*time.Second, "no watch left on the server", func() bool { return serverWatches(t, addr) == base })
}

// TestStopWatchWithoutRemoveWatches: a ZooKeeper 3.4 server has no
// removeWatches. A given-up watch is forgotten by the Conn all the same
// (its event, when it comes, goes nowhere) and the server keeps it until
// it fires; the Conn goes on working.
func TestStopWatchWithoutRemoveWatches(t *testing.T) {
	cl := zktest.ForTest(t, zktest.WithBackend(zktest.BackendLocal), zktest.WithVersion(zktest.Version34))
	c, _ := dialTest(t, cl.Addrs()...)
	addr := cl.Addr(0)
	ctx := context.Background()
	mustCreate(t, c, "/old")
	base := serverWatches(t, addr)
	for range 3 { // the first answer turns the requests off; the later give-ups send none
		_, _, ch, err := c.GetW(ctx, "/old")
		if err != nil {
			t.Fatal(err)
		}
		c.StopWatch("/old", ch)
		if n, _ := c.WatchCount(); n != 0 {
			t.Fatalf("the Conn keeps %d one-shot watches after the give-up, want 0", n)
		}
	}
	if n := serverWatches(t, addr); n != base+1 {
		t.Fatalf("server watches %d, want %d: the given-up watch stays on a 3.4 server", n, base+1)
	}
	if _, err := c.Set(ctx, "/old", []byte("x"), -1); err != nil {
		t.Fatalf("the Conn after removeWatches was refused: %v", err)
	}
	eventually(t, 10*time.Second, "the fired watch gone from the server", func() bool { return serverWatches(t, addr) == base })
}
