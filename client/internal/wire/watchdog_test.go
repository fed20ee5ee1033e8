package wire

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"
)

// The watchdog, against a fake server on loopback: notifications prove
// nothing about what the server received from us, so a server that only
// sends them loses the connection; one that answers every ping keeps it.

type fixedHost string

func (h fixedHost) Next() (string, bool) { return string(h), false }
func (h fixedHost) Connected()           {}

// fakeFrame builds one length-prefixed frame.
func fakeFrame(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// fakeServe accepts connections until the listener closes; on each it
// reads the connect request, answers with timeoutMs and session 0x77, and
// runs serve. It counts the connections.
func fakeServe(t *testing.T, timeoutMs int32, serve func(net.Conn)) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	done := make(chan struct{})
	var conns sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); <-done; conns.Wait() })
	go func() {
		defer close(done)
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer nc.Close()
				if _, err := readFrame(nc, nil, DefaultMaxFrame); err != nil {
					return
				}
				resp := fakeFrame(be32(0), be32(timeoutMs), be64(0x77), be32(16), make([]byte, 16), []byte{0})
				if _, err := nc.Write(resp); err != nil {
					return
				}
				serve(nc)
			}()
		}
	}()
	return ln.Addr().String(), accepted
}

func dialFake(t *testing.T, addr string, timeout time.Duration) *Conn {
	t.Helper()
	c := Dial(Config{Hosts: fixedHost(addr), SessionTimeout: timeout, Dial: net.DialTimeout})
	t.Cleanup(c.Close)
	return c
}

func TestWatchdogIgnoresNotifications(t *testing.T) {
	noLeaks(t)
	const timeoutMs = 300
	addr, accepted := fakeServe(t, timeoutMs, func(nc net.Conn) {
		note := fakeFrame(be32(xidNotification), be64(-1), be32(0), be32(int32(zk.EventNodeDataChanged)), be32(3), be32(2), []byte("/x"))
		go func() { _, _ = io.Copy(io.Discard, nc) }()
		for {
			if _, err := nc.Write(note); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	c := dialFake(t, addr, timeoutMs*time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for accepted.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if accepted.Load() < 2 {
		t.Fatal("the watchdog never dropped a connection that only got notifications")
	}
	c.Close()
}

func TestWatchdogKeepsAnsweredConnection(t *testing.T) {
	noLeaks(t)
	const timeoutMs = 600 // limit 400 ms
	addr, accepted := fakeServe(t, timeoutMs, func(nc net.Conn) {
		for {
			body, err := readFrame(nc, nil, DefaultMaxFrame)
			if err != nil {
				return
			}
			xid := int32(binary.BigEndian.Uint32(body))
			if _, err := nc.Write(fakeFrame(be32(xid), be64(5), be32(0))); err != nil {
				return
			}
		}
	})
	c := dialFake(t, addr, timeoutMs*time.Millisecond)
	time.Sleep(2 * time.Second) // five times the limit, pings only
	if n := accepted.Load(); n != 1 {
		t.Fatalf("%d connections: a connection whose pings were all answered was dropped", n)
	}
	if c.SessionID() != 0x77 {
		t.Fatalf("session %x", c.SessionID())
	}
	c.Close()
}

// noLeaks checks, after the test's other cleanups, that it left no goroutine.
func noLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}
