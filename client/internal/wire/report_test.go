package wire_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// reports records Config.Request's calls.
type reports struct {
	mu  sync.Mutex
	got []report
}

type report struct {
	op   int32
	took time.Duration
	err  error
}

func (r *reports) add(op int32, took time.Duration, err error) {
	r.mu.Lock()
	r.got = append(r.got, report{op, took, err})
	r.mu.Unlock()
}

// take returns the reports so far and forgets them.
func (r *reports) take() []report {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

// await waits until there are n reports and returns them.
func (r *reports) await(t *testing.T, n int) []report {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		have := len(r.got)
		r.mu.Unlock()
		if have >= n || time.Now().After(deadline) {
			return r.take()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// line is a report without its time: "op=4 err=<nil>".
func (p report) line() string { return fmt.Sprintf("op=%d err=%v", p.op, p.err) }

func dialReported(t *testing.T, link *faultlink.Link) (*wire.Conn, *reports) {
	t.Helper()
	rec := &reports{}
	ev := &events{ch: make(chan zk.Event, 1000)}
	dial := net.DialTimeout
	if link != nil {
		dial = link.Dial
	}
	c := wire.Dial(wire.Config{
		Hosts:          &rotation{servers: cluster.Addrs()},
		SessionTimeout: 4 * time.Second,
		Dial:           dial,
		Event:          ev.add,
		Request:        rec.add,
	})
	t.Cleanup(c.Close)
	waitState(t, ev, zk.StateHasSession)
	return c, rec
}

// TestConnReportsRequests: every request written is reported once, when
// its reply comes, with its op, a time and its error; a request whose
// caller left is reported when its reply comes; one whose reply never
// comes is reported when its connection goes; one never written (no
// connection) is not reported.
func TestConnReportsRequests(t *testing.T) {
	link := faultlink.New()
	defer link.Close()
	c, rec := dialReported(t, link)
	cx := ctx(t)
	acl := zk.WorldACL(zk.PermAll)
	base := "/wire-report"
	_ = rec.take() // the session's first requests, if any

	_, _ = c.Create(cx, base, nil, 0, acl)
	_, _ = c.Create(cx, base, nil, 0, acl)
	_, _, _ = c.Get(cx, base)
	_, _, _ = c.Exists(cx, base+"/missing")
	_, _ = c.Set(cx, base, nil, 7)
	_, _, _ = c.Children(cx, base)
	_, _ = c.Multi(cx, &zk.CreateRequest{Path: base + "/m", Acl: acl}, &zk.DeleteRequest{Path: base + "/m", Version: -1})
	_, _ = c.Sync(cx, base)
	_ = c.Delete(cx, base, -1)
	want := []string{
		"op=1 err=<nil>", "op=1 err=" + zk.ErrNodeExists.Error(), "op=4 err=<nil>", "op=3 err=" + zk.ErrNoNode.Error(),
		"op=5 err=" + zk.ErrBadVersion.Error(), "op=12 err=<nil>", "op=14 err=<nil>", "op=9 err=<nil>", "op=2 err=<nil>",
	}
	got := rec.take()
	if len(got) != len(want) {
		t.Fatalf("reports %v, want %v", got, want)
	}
	for i, g := range got {
		if g.line() != want[i] || g.took <= 0 || g.took > 10*time.Second {
			t.Errorf("report %d: %s took %v, want %s", i, g.line(), g.took, want[i])
		}
	}

	// The caller leaves; the request is reported once its reply comes.
	fired, release := link.HoldRequest(faultlink.OpGetData)
	short, cancel := context.WithCancel(cx)
	go func() { <-fired; cancel() }()
	if _, _, err := c.Get(short, "/"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with its request held and ctx cancelled: %v", err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("reported before the reply: %v", got)
	}
	release()
	if got := rec.await(t, 1); len(got) != 1 || got[0].line() != "op=4 err=<nil>" {
		t.Fatalf("after the held reply: %v", got)
	}

	// The reply never comes: reported when the connection goes.
	link.DropReplyTo(faultlink.OpExists)
	if _, _, err := c.Exists(cx, "/"); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Exists whose reply is dropped: %v", err)
	}
	got = rec.await(t, 1)
	if len(got) != 1 || got[0].op != 3 || !errors.Is(got[0].err, zk.ErrConnectionClosed) || got[0].took < 100*time.Millisecond {
		t.Fatalf("after the dropped reply: %+v", got)
	}

	// No connection: nothing written, nothing reported.
	link.Cut()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, err := c.Get(cx, "/"); errors.Is(err, zk.ErrConnectionClosed) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the link's cut never showed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = rec.take() // what was in flight when the cut came
	for range 3 {
		if _, _, err := c.Get(cx, "/"); !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("Get on a cut link: %v", err)
		}
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("requests made with no connection were reported: %v", got)
	}
	link.Restore()
}

// BenchmarkConnGet is a Get on a real server without a Request callback
// and with one that does nothing: the callback's cost next to a round
// trip (-benchmem: no allocation of its own).
func BenchmarkConnGet(b *testing.B) {
	for _, bc := range []struct {
		name string
		f    func(int32, time.Duration, error)
	}{{"none", nil}, {"hook", func(int32, time.Duration, error) {}}} {
		b.Run(bc.name, func(b *testing.B) {
			ev := &events{ch: make(chan zk.Event, 1000)}
			c := wire.Dial(wire.Config{
				Hosts: &rotation{servers: cluster.Addrs()}, SessionTimeout: 4 * time.Second,
				Dial: net.DialTimeout, Event: ev.add, Request: bc.f,
			})
			defer c.Close()
			ctx := context.Background()
			for {
				if _, _, err := c.Get(ctx, "/"); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := c.Get(ctx, "/"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
