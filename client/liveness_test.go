package client

import (
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// frame builds one length-prefixed frame.
func frame(body ...[]byte) []byte {
	var b []byte
	for _, p := range body {
		b = append(b, p...)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func i64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// connectRequest, request, connectResponse and reply are frames as
// go-zookeeper and the server write them (bodies abridged or padded).
func connectRequest() []byte {
	return frame(i32(0), i64(0), i32(1500), i64(0), i32(16), make([]byte, 16))
}
func request(xid, op int32, body int) []byte {
	return frame(i32(xid), i32(op), make([]byte, body))
}
func connectResponse(timeoutMs int32, sid int64) []byte {
	return frame(i32(0), i32(timeoutMs), i64(sid), i32(16), make([]byte, 16))
}
func reply(xid int32, body int) []byte { return frame(i32(xid), i64(7), i32(0), make([]byte, body)) }

type seen struct {
	hdr   []byte
	index int
}

func scanAll(s *frameScanner, stream []byte, chunk func() int) []seen {
	var out []seen
	for len(stream) > 0 {
		n := min(chunk(), len(stream))
		s.feed(stream[:n], time.Time{}, func(hdr []byte, index int, _ time.Time) {
			out = append(out, seen{append([]byte(nil), hdr...), index})
		})
		stream = stream[n:]
	}
	return out
}

func TestFrameScannerAcrossSplits(t *testing.T) {
	var stream []byte
	stream = append(stream, connectResponse(4000, 42)...)
	stream = append(stream, reply(1, 0)...)
	stream = append(stream, reply(-1, 300)...)
	stream = append(stream, frame()...) // an empty frame
	stream = append(stream, reply(-2, 0)...)
	stream = append(stream, reply(2, 70000)...)

	whole := scanAll(&frameScanner{firstHdr: connectRespHdrLen, restHdr: replyHeaderLen}, stream, func() int { return len(stream) })
	require.Len(t, whole, 6)
	assert.Equal(t, int32(4000), int32(binary.BigEndian.Uint32(whole[0].hdr[4:8])))
	assert.Equal(t, int64(42), int64(binary.BigEndian.Uint64(whole[0].hdr[8:16])))
	for i, want := range []int32{1, -1, 0, -2, 2} {
		got := whole[i+1]
		assert.Equal(t, i+1, got.index)
		if want == 0 {
			assert.Empty(t, got.hdr, "empty frame")
			continue
		}
		assert.Equal(t, want, int32(binary.BigEndian.Uint32(got.hdr)))
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"byte by byte", "random chunks"} {
		chunk := func() int { return 1 }
		if name == "random chunks" {
			chunk = func() int { return 1 + rng.IntN(40) }
		}
		got := scanAll(&frameScanner{firstHdr: connectRespHdrLen, restHdr: replyHeaderLen}, stream, chunk)
		assert.Equal(t, whole, got, name)
	}
}

func TestFrameScannerStopsOnNonsense(t *testing.T) {
	s := frameScanner{restHdr: requestHeaderLen}
	calls := 0
	s.feed(i32(-5), time.Time{}, func([]byte, int, time.Time) { calls++ })
	s.feed(request(1, 4, 3), time.Time{}, func([]byte, int, time.Time) { calls++ })
	assert.Zero(t, calls)
	assert.True(t, s.broken)
}

// TestLiveConnAcknowledgements drives the bookkeeping with chosen send times:
// only replies move lastAcked, to the send time of the request they answer;
// fixed xids (pings) match first in, first out; notifications move nothing.
func TestLiveConnAcknowledgements(t *testing.T) {
	var negotiated time.Duration
	l := newLiveConn(nil, slog.Default(), func(d time.Duration) { negotiated = d }, nil)
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	send := func(b []byte, ms int) { l.out.feed(b, at(ms), l.sentLocked) }
	recv := func(b []byte) { l.in.feed(b, time.Time{}, l.receivedLocked) }

	send(connectRequest(), 0)
	recv(connectResponse(1500, 9))
	require.NotNil(t, l.timer)
	defer l.timer.Stop()
	assert.Equal(t, 1500*time.Millisecond, negotiated)
	assert.Equal(t, time.Second, l.limit)
	assert.Equal(t, at(0), l.lastAcked, "the connect request is the first acknowledged send")

	send(request(-2, 11, 0), 500)  // ping
	send(request(5, 4, 20), 510)   // getData
	send(request(-2, 11, 0), 1000) // ping
	recv(reply(-1, 50))            // notification
	assert.Equal(t, at(0), l.lastAcked)
	recv(reply(-2, 0))
	assert.Equal(t, at(500), l.lastAcked, "the first ping's reply")
	recv(reply(5, 10))
	assert.Equal(t, at(510), l.lastAcked)
	recv(reply(-1, 50))
	recv(reply(-2, 0))
	assert.Equal(t, at(1000), l.lastAcked, "the second ping's reply")
	recv(reply(77, 0)) // a reply to nothing we sent
	assert.Equal(t, at(1000), l.lastAcked)
	assert.Empty(t, l.pending)
}

func TestLiveConnNoWatchdogOnExpiredSession(t *testing.T) {
	l := newLiveConn(nil, slog.Default(), nil, nil)
	l.out.feed(connectRequest(), time.Now(), l.sentLocked)
	l.in.feed(connectResponse(0, 0), time.Time{}, l.receivedLocked)
	assert.Nil(t, l.timer, "a connect response without a session arms nothing")
}

// fakeServer answers a liveConn over net.Pipe: the connect response, then
// whatever serve does.
func fakeServer(t *testing.T, timeoutMs int32, serve func(srv net.Conn)) (*liveConn, *atomic.Int64) {
	cli, srv := net.Pipe()
	var negotiated atomic.Int64
	l := newLiveConn(cli, slog.Default(), func(d time.Duration) { negotiated.Store(int64(d)) }, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer srv.Close()
		buf := make([]byte, len(connectRequest()))
		if _, err := io.ReadFull(srv, buf); err != nil {
			return
		}
		if _, err := srv.Write(connectResponse(timeoutMs, 1)); err != nil {
			return
		}
		serve(srv)
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
	})
	_, err := l.Write(connectRequest())
	require.NoError(t, err)
	_, err = io.ReadFull(l, make([]byte, len(connectResponse(0, 0))))
	require.NoError(t, err)
	return l, &negotiated
}

// TestWatchdogIgnoresNotifications: a server that streams notifications but
// answers nothing gets the connection closed once 2/3 of the session
// timeout passed since the connect request, although frames keep coming.
func TestWatchdogIgnoresNotifications(t *testing.T) {
	defer goleak.VerifyNone(t)
	const timeoutMs = 300
	l, negotiated := fakeServer(t, timeoutMs, func(srv net.Conn) {
		for {
			if _, err := srv.Write(reply(-1, 30)); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	assert.Equal(t, int64(timeoutMs*time.Millisecond), negotiated.Load())
	start := time.Now()
	frames := 0
	buf := make([]byte, 512)
	var err error
	for err == nil && time.Since(start) < 10*time.Second {
		var n int
		n, err = l.Read(buf)
		frames += n
	}
	require.Error(t, err, "the watchdog never closed the connection")
	assert.True(t, errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrClosedPipe), "err: %v", err)
	assert.Positive(t, frames, "notifications were flowing")
	t.Logf("closed %v after the connect response, %d notification bytes read", time.Since(start), frames)
}

// TestWatchdogKeepsAnsweredConnection: pings answered promptly keep the
// connection open for several times the watchdog's limit.
func TestWatchdogKeepsAnsweredConnection(t *testing.T) {
	defer goleak.VerifyNone(t)
	const timeoutMs = 600 // limit 400ms
	l, _ := fakeServer(t, timeoutMs, func(srv net.Conn) {
		buf := make([]byte, len(request(-2, 11, 0)))
		for {
			if _, err := io.ReadFull(srv, buf); err != nil {
				return
			}
			if _, err := srv.Write(reply(-2, 0)); err != nil {
				return
			}
		}
	})
	readErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := l.Read(buf); err != nil {
				readErr <- err
				return
			}
		}
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(1500 * time.Millisecond)
	for {
		select {
		case err := <-readErr:
			require.FailNow(t, "the connection closed although every ping was answered", "%v", err)
		case <-tick.C:
			_, err := l.Write(request(-2, 11, 0))
			require.NoError(t, err)
			continue
		case <-deadline:
		}
		break
	}
	require.NoError(t, l.Close())
	<-readErr
}
