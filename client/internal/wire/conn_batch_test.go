package wire_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// TestConnCreateThenChildren: the listing sent behind a create, in the same
// write, sees the node the create made; a create that fails leaves the
// listing's own outcome.
func TestConnCreateThenChildren(t *testing.T) {
	c, _ := dialTest(t)
	cx := ctx(t)
	acl := zk.WorldACL(zk.PermAll)
	dir := "/wire-ctc"
	if _, err := c.Create(cx, dir, nil, 0, acl); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kids, _, _ := c.Children(ctx(t), dir)
		for _, k := range kids {
			_ = c.Delete(ctx(t), dir+"/"+k, -1)
		}
		_ = c.Delete(ctx(t), dir, -1)
	})
	var made []string
	for i := range 3 {
		p, kids, listErr, err := c.CreateThenChildren(cx, dir+"/n-", nil, zk.FlagEphemeralSequential, acl, dir)
		if err != nil || listErr != nil {
			t.Fatalf("round %d: %v, listing %v", i, err, listErr)
		}
		made = append(made, p[len(dir)+1:])
		slices.Sort(kids)
		if !slices.Equal(kids, made) {
			t.Fatalf("round %d: listing %q right after the create of %s, want %q", i, kids, p, made)
		}
	}
	// The create fails (no parent), the listing of an existing dir does not.
	p, kids, listErr, err := c.CreateThenChildren(cx, dir+"/missing/n", nil, 0, acl, dir)
	if !errors.Is(err, zk.ErrNoNode) || p != "" || listErr != nil || len(kids) != len(made) {
		t.Fatalf("failed create: %q %v, listing %q %v", p, err, kids, listErr)
	}
	// Both fail.
	_, kids, listErr, err = c.CreateThenChildren(cx, "/wire-ctc-none/n", nil, 0, acl, "/wire-ctc-none")
	if !errors.Is(err, zk.ErrNoNode) || !errors.Is(listErr, zk.ErrNoNode) || kids != nil {
		t.Fatalf("both fail: %v, listing %q %v", err, kids, listErr)
	}
}

// TestConnReads: a batch of reads gets one reply each, in the order sent,
// each with its read's tag and sequence, the data and children the server
// has, and the server's error for a missing node; on a closed Conn every
// read fails at once with zk.ErrClosing.
func TestConnReads(t *testing.T) {
	c, _ := dialTest(t)
	cx := ctx(t)
	acl := zk.WorldACL(zk.PermAll)
	dir := "/wire-reads"
	if _, err := c.Create(cx, dir, []byte("d"), 0, acl); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := range 50 {
			_ = c.Delete(ctx(t), fmt.Sprintf("%s/k%d", dir, i), -1)
		}
		_ = c.Delete(ctx(t), dir, -1)
	})
	for i := range 50 {
		if _, err := c.Create(cx, fmt.Sprintf("%s/k%d", dir, i), []byte(fmt.Sprint(i)), 0, acl); err != nil {
			t.Fatal(err)
		}
	}
	var reads []access.Read
	for i := range 50 {
		reads = append(reads, access.Read{Path: fmt.Sprintf("/k%d", i), Tag: i, Seq: uint64(100 + i)})
	}
	reads = append(reads, access.Read{Path: "", Children: true, Tag: "dir", Seq: 7},
		access.Read{Path: "/missing", Tag: "missing", Seq: 8})
	type got struct {
		tag      any
		seq      uint64
		children bool
		data     string
		kids     int
		version  int32
		err      error
	}
	var mu sync.Mutex
	var replies []got
	done := make(chan struct{})
	c.Reads(reads, func(p string) string { return dir + p }, func(r *access.Reply) {
		mu.Lock()
		defer mu.Unlock()
		replies = append(replies, got{r.Tag, r.Seq, r.Children, string(r.Data), len(r.Kids), r.Stat.Version, r.Err})
		if len(replies) == len(reads) {
			close(done)
		}
	})
	<-done
	for i, g := range replies[:50] {
		if g.tag != i || g.seq != uint64(100+i) || g.children || g.data != fmt.Sprint(i) || g.err != nil {
			t.Fatalf("reply %d: %+v", i, g)
		}
	}
	if g := replies[50]; g.tag != "dir" || g.seq != 7 || !g.children || g.kids != 50 || g.err != nil {
		t.Fatalf("listing: %+v", g)
	}
	if g := replies[51]; g.tag != "missing" || !errors.Is(g.err, zk.ErrNoNode) {
		t.Fatalf("missing node: %+v", g)
	}
	closed, _ := dialTest(t)
	closed.Close()
	n := 0
	closed.Reads(reads[:3], func(p string) string { return dir + p }, func(r *access.Reply) {
		if !errors.Is(r.Err, zk.ErrClosing) {
			t.Errorf("read on a closed Conn: %v", r.Err)
		}
		n++
	})
	if n != 3 {
		t.Fatalf("%d replies on a closed Conn, want 3 at once", n)
	}
}
