package wire_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

var cluster *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) { cluster = c })
}

// rotation is the simplest Hosts: the servers in turn.
type rotation struct {
	mu      sync.Mutex
	servers []string
	next    int
}

func (r *rotation) Next() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.servers[r.next%len(r.servers)]
	r.next++
	return s, r.next > len(r.servers) && r.next%len(r.servers) == 1
}

func (r *rotation) Connected() {}

// events records a Conn's events.
type events struct {
	mu  sync.Mutex
	all []zk.Event
	ch  chan zk.Event
}

func (e *events) add(ev zk.Event, _ int64) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	select {
	case e.ch <- ev:
	default:
	}
}

func dialTest(t *testing.T, servers ...string) (*wire.Conn, *events) {
	t.Helper()
	if len(servers) == 0 {
		servers = cluster.Addrs()
	}
	ev := &events{ch: make(chan zk.Event, 1000)}
	c := wire.Dial(wire.Config{
		Hosts:          &rotation{servers: servers},
		SessionTimeout: 4 * time.Second,
		Dial:           net.DialTimeout,
		Event:          ev.add,
	})
	t.Cleanup(c.Close)
	waitState(t, ev, zk.StateHasSession)
	return c, ev
}

func waitState(t *testing.T, ev *events, want zk.State) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-ev.ch:
			if e.Type == zk.EventSession && e.State == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %v within 15s", want)
		}
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestConnBasicOps(t *testing.T) {
	c, _ := dialTest(t)
	cx := ctx(t)
	acl := zk.WorldACL(zk.PermAll)
	base := "/wire-basic"
	if _, err := c.Create(cx, base, []byte("x"), 0, acl); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), base, -1) })
	data, st, err := c.Get(cx, base)
	if err != nil || string(data) != "x" || st.Version != 0 {
		t.Fatalf("get: %q %+v %v", data, st, err)
	}
	if _, err := c.Create(cx, base, nil, 0, acl); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("create twice: %v", err)
	}
	seq, err := c.Create(cx, base+"/s-", nil, zk.FlagEphemeralSequential, acl)
	if err != nil || len(seq) != len(base+"/s-")+10 {
		t.Fatalf("sequential: %q %v", seq, err)
	}
	kids, _, ch, err := c.ChildrenW(cx, base)
	if err != nil || len(kids) != 1 {
		t.Fatalf("children: %v %v", kids, err)
	}
	_, _, dch, err := c.GetW(cx, seq)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(cx, seq, -1); err != nil {
		t.Fatal(err)
	}
	for _, w := range []<-chan zk.Event{ch, dch} {
		select {
		case e := <-w:
			if e.Type != zk.EventNodeChildrenChanged && e.Type != zk.EventNodeDeleted {
				t.Fatalf("event %+v", e)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no watch event")
		}
	}
	ok, _, ech, err := c.ExistsW(cx, base+"/later")
	if err != nil || ok || ech == nil {
		t.Fatalf("existsW: %v %v", ok, err)
	}
	if _, err := c.Create(cx, base+"/later", nil, 0, acl); err != nil {
		t.Fatal(err)
	}
	if e := <-ech; e.Type != zk.EventNodeCreated {
		t.Fatalf("exists event %+v", e)
	}
	st2, err := c.Set(cx, base, []byte("y"), 0)
	if err != nil || st2.Version != 1 {
		t.Fatalf("set: %+v %v", st2, err)
	}
	if _, err := c.Set(cx, base, []byte("z"), 0); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("set stale: %v", err)
	}
	res, err := c.Multi(cx, &zk.CreateRequest{Path: base + "/m", Acl: acl},
		&zk.DeleteRequest{Path: base + "/later", Version: -1})
	// ZooKeeper 3.8 answers a create2 inside a multi as a create (no Stat).
	if err != nil || len(res) != 2 || res[0].String != base+"/m" || (res[0].Stat != nil && res[0].Stat.Czxid == 0) {
		t.Fatalf("multi: %+v %v", res, err)
	}
	res, err = c.Multi(cx, &zk.CreateRequest{Path: base + "/n", Acl: acl},
		&zk.DeleteRequest{Path: base + "/missing", Version: -1})
	if !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("failing multi: %+v %v", res, err)
	}
	if ok, _, _ := c.Exists(cx, base+"/n"); ok {
		t.Fatal("a failed multi committed")
	}
	if _, err := c.Sync(cx, base); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base + "/m"} {
		_ = c.Delete(cx, p, -1)
	}
}

func TestConnCloseEndsSession(t *testing.T) {
	c, _ := dialTest(t)
	other, _ := dialTest(t)
	cx := ctx(t)
	p, err := c.Create(cx, "/wire-eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	_, _, w, err := c.GetW(cx, "/")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if e := <-w; e.Type != zk.EventNotWatching || !errors.Is(e.Err, zk.ErrClosing) {
		t.Fatalf("watch after close: %+v", e)
	}
	if ok, _, err := other.Exists(cx, p); ok || err != nil {
		t.Fatalf("ephemeral after Close: %v %v", ok, err)
	}
	if _, _, err := c.Get(cx, "/"); !errors.Is(err, zk.ErrClosing) {
		t.Fatalf("get after close: %v", err)
	}
}
