package zktest

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

func TestParseSrvr(t *testing.T) {
	cases := []struct {
		reply, mode string
		notServing  bool
	}{
		{"Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.0/0\nMode: standalone\nNode count: 5\n", "standalone", false},
		{"Zookeeper version: 3.9.2\nMode: leader\n", "leader", false},
		{"Mode: follower", "follower", false},
		{"This ZooKeeper instance is not currently serving requests\n", "", true},
		{"", "", false},
		{"srvr is not executed because it is not in the whitelist.\n", "", false},
		{"Mode:\n", "", false},
	}
	for _, c := range cases {
		mode, err := parseSrvr(c.reply)
		switch {
		case c.mode != "":
			if err != nil || mode != c.mode {
				t.Errorf("%q: got %q, %v; want %q", c.reply, mode, err, c.mode)
			}
		case c.notServing:
			if !errors.Is(err, errNotServing) {
				t.Errorf("%q: got %q, %v; want errNotServing", c.reply, mode, err)
			}
		default:
			if err == nil {
				t.Errorf("%q: got %q, want an error", c.reply, mode)
			}
		}
	}
}

// fakeServer answers every connection with reply (after reading the
// four-letter word), or never answers when reply is nil.
func fakeServer(t *testing.T, reply []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		_ = ln.Close()
	})
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 4)
				if _, err := io.ReadFull(conn, buf); err != nil {
					return
				}
				if reply == nil {
					<-done
					return
				}
				_, _ = conn.Write(reply)
			}()
		}
	}()
	return ln.Addr().String()
}

func TestSrvrProbe(t *testing.T) {
	addr := fakeServer(t, []byte("Zookeeper version: x\nMode: follower\n"))
	mode, err := srvr(context.Background(), addr)
	if err != nil || mode != "follower" {
		t.Fatalf("srvr = %q, %v", mode, err)
	}

	silent := fakeServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if mode, err := srvr(ctx, silent); err == nil {
		t.Fatalf("silent server: srvr = %q", mode)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	if _, err := srvr(context.Background(), closed); err == nil {
		t.Fatalf("closed port: no error")
	}
}

func TestFreePortsDistinct(t *testing.T) {
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v", ports)
		}
		seen[p] = true
	}
}

func TestLastLines(t *testing.T) {
	if got := lastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("lastLines = %q", got)
	}
	if got := lastLines("a", 5); got != "a" {
		t.Errorf("lastLines = %q", got)
	}
}
