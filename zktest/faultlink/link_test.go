package faultlink

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// linkTestWait bounds how long a test waits for something that must happen.
const linkTestWait = 5 * time.Second

// linkTestQuiet is how long a test watches for something that must not happen.
const linkTestQuiet = 250 * time.Millisecond

// linkTestFrame is one frame a linkTestServer received.
type linkTestFrame struct {
	conn int    // index of the server-side connection, in accept order
	raw  []byte // the whole frame, length prefix included
}

// linkTestServer speaks ZooKeeper's framing on loopback: it answers the first
// frame of every connection with a frame holding "welcome" and echoes every
// later frame back unchanged. It records every frame it receives.
type linkTestServer struct {
	t      *testing.T
	ln     net.Listener
	frames chan linkTestFrame
	done   chan struct{}
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
	added chan struct{} // signalled when a connection is accepted
}

func newLinkTestServer(t *testing.T) *linkTestServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &linkTestServer{
		t:      t,
		ln:     ln,
		frames: make(chan linkTestFrame, 1024),
		done:   make(chan struct{}),
		added:  make(chan struct{}, 64),
	}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *linkTestServer) addr() string { return s.ln.Addr().String() }

func (s *linkTestServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		idx := len(s.conns)
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.added <- struct{}{}
		s.wg.Add(1)
		go s.serve(idx, c)
	}
}

func (s *linkTestServer) serve(idx int, c net.Conn) {
	defer s.wg.Done()
	defer c.Close()
	first := true
	for {
		raw, err := linkTestReadFrame(c)
		if err != nil {
			return
		}
		select {
		case s.frames <- linkTestFrame{conn: idx, raw: raw}:
		case <-s.done:
			return
		}
		reply := raw
		if first {
			reply = linkTestRawFrame([]byte("welcome"))
			first = false
		}
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}

// conn returns the i-th accepted server-side connection, waiting for it.
func (s *linkTestServer) conn(i int) net.Conn {
	s.t.Helper()
	deadline := time.After(linkTestWait)
	for {
		s.mu.Lock()
		if i < len(s.conns) {
			c := s.conns[i]
			s.mu.Unlock()
			return c
		}
		s.mu.Unlock()
		select {
		case <-s.added:
		case <-deadline:
			s.t.Fatalf("server connection %d never arrived", i)
		}
	}
}

// next returns the next frame the server received.
func (s *linkTestServer) next() linkTestFrame {
	s.t.Helper()
	select {
	case f := <-s.frames:
		return f
	case <-time.After(linkTestWait):
		s.t.Fatalf("server received no frame within %v", linkTestWait)
		return linkTestFrame{}
	}
}

// expectNothing fails the test if the server receives a frame soon.
func (s *linkTestServer) expectNothing() {
	s.t.Helper()
	select {
	case f := <-s.frames:
		s.t.Fatalf("server received an unexpected frame %x on connection %d", f.raw, f.conn)
	case <-time.After(linkTestQuiet):
	}
}

func (s *linkTestServer) close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	_ = s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// linkTestRawFrame prefixes body with its big-endian length.
func linkTestRawFrame(body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	return append(out, body...)
}

// linkTestRequest builds a request frame: xid, opcode, then payload.
func linkTestRequest(xid, op int32, payload string) []byte {
	body := binary.BigEndian.AppendUint32(nil, uint32(xid))
	body = binary.BigEndian.AppendUint32(body, uint32(op))
	return linkTestRawFrame(append(body, payload...))
}

// linkTestConnect builds a connect frame whose bytes where a request would
// keep its opcode hold OpCreate, so that counting it would be visible.
func linkTestConnect() []byte {
	body := make([]byte, 44)
	binary.BigEndian.PutUint32(body[4:8], uint32(OpCreate))
	return linkTestRawFrame(body)
}

func linkTestReadFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(hdr[:])
	if size > 1<<20 {
		return nil, errors.New("frame too large")
	}
	raw := make([]byte, 4+size)
	copy(raw, hdr[:])
	if _, err := io.ReadFull(r, raw[4:]); err != nil {
		return nil, err
	}
	return raw, nil
}

// linkTestSetup registers the goroutine-leak check first, so that it runs
// after every other cleanup, and starts a server.
func linkTestSetup(t *testing.T) *linkTestServer {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) })
	return newLinkTestServer(t)
}

// linkTestHandshake dials through l, sends a connect frame and reads the welcome.
func linkTestHandshake(t *testing.T, l *Link, s *linkTestServer) net.Conn {
	t.Helper()
	c, err := l.Dial("tcp", s.addr(), linkTestWait)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	linkTestWrite(t, c, linkTestConnect())
	s.next()
	linkTestExpectFrame(t, c, linkTestRawFrame([]byte("welcome")))
	return c
}

func linkTestWrite(t *testing.T, c net.Conn, b []byte) {
	t.Helper()
	if n, err := c.Write(b); err != nil || n != len(b) {
		t.Fatalf("write: n=%d of %d, err=%v", n, len(b), err)
	}
}

func linkTestExpectFrame(t *testing.T, c net.Conn, want []byte) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(linkTestWait))
	got, err := linkTestReadFrame(c)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("reply = %x, want %x", got, want)
	}
}

// linkTestReadAsync starts a Read on c and returns a channel with its outcome.
func linkTestReadAsync(c net.Conn) <-chan error {
	out := make(chan error, 1)
	go func() {
		buf := make([]byte, 64)
		n, err := c.Read(buf)
		if err == nil {
			err = errors.New("read returned data: " + string(buf[:n]))
			out <- &linkTestDataError{err}
			return
		}
		out <- err
	}()
	return out
}

// linkTestDataError marks a read that returned data instead of failing.
type linkTestDataError struct{ error }

func linkTestExpectReadFails(t *testing.T, res <-chan error) error {
	t.Helper()
	select {
	case err := <-res:
		var data *linkTestDataError
		if errors.As(err, &data) {
			t.Fatalf("read should have failed without data, got: %v", err)
		}
		return err
	case <-time.After(linkTestWait):
		t.Fatalf("read still blocked after %v", linkTestWait)
		return nil
	}
}

func linkTestExpectBlocked(t *testing.T, res <-chan error) {
	t.Helper()
	select {
	case err := <-res:
		t.Fatalf("read returned while it should block: %v", err)
	case <-time.After(linkTestQuiet):
	}
}

func TestLinkFramingAndCounting(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()

	c, err := l.Dial("tcp", s.addr(), linkTestWait)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()

	// The connect request, one byte per write.
	connect := linkTestConnect()
	for i := range connect {
		linkTestWrite(t, c, connect[i:i+1])
	}
	if got := s.next(); !bytes.Equal(got.raw, connect) {
		t.Fatalf("server got connect %x, want %x", got.raw, connect)
	}
	linkTestExpectFrame(t, c, linkTestRawFrame([]byte("welcome")))
	if got := l.Requests(OpCreate); got != 0 {
		t.Fatalf("connect request counted: Requests(OpCreate) = %d, want 0", got)
	}

	// Three frames in one write.
	a := linkTestRequest(1, OpCreate, "/a")
	b := linkTestRequest(2, OpGetData, "/b")
	d := linkTestRequest(3, OpCreate, "")
	linkTestWrite(t, c, bytes.Join([][]byte{a, b, d}, nil))
	for _, want := range [][]byte{a, b, d} {
		if got := s.next(); !bytes.Equal(got.raw, want) {
			t.Fatalf("server got %x, want %x", got.raw, want)
		}
		linkTestExpectFrame(t, c, want)
	}

	// Frames split at awkward places: inside the length, inside the header,
	// inside the payload, and a write that ends one frame and starts the next.
	e := linkTestRequest(4, OpSetData, "some payload")
	f := linkTestRequest(5, OpExists, "/f")
	stream := append(append([]byte{}, e...), f...)
	cuts := []int{2, 6, 9, 15, len(e) + 1, len(e) + 10, len(stream)}
	prev := 0
	for _, cut := range cuts {
		linkTestWrite(t, c, stream[prev:cut])
		prev = cut
		if cut == len(e)+1 {
			// e is complete, f has barely started.
			if got := l.Requests(OpSetData); got != 1 {
				t.Fatalf("Requests(OpSetData) after its last byte = %d, want 1", got)
			}
			if got := l.Requests(OpExists); got != 0 {
				t.Fatalf("Requests(OpExists) before its last byte = %d, want 0", got)
			}
		}
	}
	for _, want := range [][]byte{e, f} {
		if got := s.next(); !bytes.Equal(got.raw, want) {
			t.Fatalf("server got %x, want %x", got.raw, want)
		}
		linkTestExpectFrame(t, c, want)
	}

	// A second connection: its first frame is again a connect request.
	c2, err := l.Dial("tcp", s.addr(), linkTestWait)
	if err != nil {
		t.Fatalf("second dial: %v", err)
	}
	defer c2.Close()
	linkTestWrite(t, c2, linkTestConnect())
	s.next()
	linkTestExpectFrame(t, c2, linkTestRawFrame([]byte("welcome")))
	g := linkTestRequest(-2, OpPing, "")
	linkTestWrite(t, c2, g)
	s.next()
	linkTestExpectFrame(t, c2, g)

	want := map[int32]int64{OpCreate: 2, OpGetData: 1, OpSetData: 1, OpExists: 1, OpPing: 1, OpDelete: 0}
	for op, n := range want {
		if got := l.Requests(op); got != n {
			t.Errorf("Requests(%d) = %d, want %d", op, got, n)
		}
	}
	if got := l.Dials(); got != 2 {
		t.Errorf("Dials() = %d, want 2", got)
	}
}

func TestLinkParserMalformedStreamPassesThrough(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	// A request frame too short to hold a header stops the counting but not
	// the traffic.
	short := linkTestRawFrame([]byte{1, 2, 3})
	linkTestWrite(t, c, short)
	if got := s.next(); !bytes.Equal(got.raw, short) {
		t.Fatalf("server got %x, want %x", got.raw, short)
	}
	linkTestExpectFrame(t, c, short)
	later := linkTestRequest(1, OpCreate, "")
	linkTestWrite(t, c, later)
	if got := s.next(); !bytes.Equal(got.raw, later) {
		t.Fatalf("server got %x, want %x", got.raw, later)
	}
	if got := l.Requests(OpCreate); got != 0 {
		t.Fatalf("Requests(OpCreate) after a malformed frame = %d, want 0", got)
	}
}

func TestLinkCut(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	res := linkTestReadAsync(c)
	linkTestExpectBlocked(t, res)
	l.Cut()
	if err := linkTestExpectReadFails(t, res); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Cut: %v, want net.ErrClosed", err)
	}
	if _, err := c.Write(linkTestRequest(1, OpCreate, "")); err == nil {
		t.Fatal("write after Cut succeeded")
	}

	start := time.Now()
	if _, err := l.Dial("tcp", s.addr(), time.Hour); !errors.Is(err, ErrCut) {
		t.Fatalf("dial while cut: %v, want ErrCut", err)
	}
	if elapsed := time.Since(start); elapsed > linkTestWait {
		t.Fatalf("dial while cut took %v; it should fail at once", elapsed)
	}
	if got := l.Dials(); got != 1 {
		t.Fatalf("Dials() = %d, want 1 (failed dials do not count)", got)
	}

	l.Restore()
	c2 := linkTestHandshake(t, l, s)
	req := linkTestRequest(7, OpGetChildren2, "/")
	linkTestWrite(t, c2, req)
	s.next()
	linkTestExpectFrame(t, c2, req)
	if got := l.Dials(); got != 2 {
		t.Fatalf("Dials() = %d, want 2", got)
	}
}

func TestLinkBlackhole(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	l.Blackhole()

	// Writes vanish.
	linkTestWrite(t, c, linkTestRequest(1, OpCreate, "/x"))
	s.expectNothing()
	if got := l.Requests(OpCreate); got != 0 {
		t.Fatalf("Requests(OpCreate) for a swallowed request = %d, want 0", got)
	}

	// Data from the server never arrives, and the read blocks.
	res := linkTestReadAsync(c)
	if _, err := s.conn(0).Write(linkTestRequest(9, OpGetData, "pushed")); err != nil {
		t.Fatalf("server push: %v", err)
	}
	linkTestExpectBlocked(t, res)

	// A dial with a timeout hangs, then times out.
	_, err := l.Dial("tcp", s.addr(), 50*time.Millisecond)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, ErrBlackholed) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("dial while blackholed: %v, want a timeout wrapping ErrBlackholed", err)
	}

	// A dial with a long timeout waits for Restore and then succeeds.
	type dialed struct {
		c   net.Conn
		err error
	}
	pending := make(chan dialed, 1)
	go func() {
		c, err := l.Dial("tcp", s.addr(), time.Hour)
		pending <- dialed{c, err}
	}()
	select {
	case d := <-pending:
		t.Fatalf("dial returned during blackhole: %v", d.err)
	case <-time.After(linkTestQuiet):
	}

	l.Restore()
	if err := linkTestExpectReadFails(t, res); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Restore: %v, want net.ErrClosed", err)
	}
	var d dialed
	select {
	case d = <-pending:
	case <-time.After(linkTestWait):
		t.Fatal("dial still blocked after Restore")
	}
	if d.err != nil {
		t.Fatalf("dial after Restore: %v", d.err)
	}
	defer d.c.Close()
	linkTestWrite(t, d.c, linkTestConnect())
	s.next()
	linkTestExpectFrame(t, d.c, linkTestRawFrame([]byte("welcome")))
	req := linkTestRequest(2, OpSync, "/")
	linkTestWrite(t, d.c, req)
	s.next()
	linkTestExpectFrame(t, d.c, req)
	if got := l.Requests(OpSync); got != 1 {
		t.Fatalf("Requests(OpSync) = %d, want 1", got)
	}
}

func TestLinkBlackholeHidesServerHangup(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	l.Blackhole()
	if err := s.conn(0).Close(); err != nil {
		t.Fatalf("server close: %v", err)
	}

	// With a deadline, the read fails with a timeout rather than EOF.
	if err := c.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatalf("set deadline: %v", err)
	}
	res := linkTestReadAsync(c)
	err := linkTestExpectReadFails(t, res)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read with deadline during blackhole: %v, want a timeout", err)
	}

	// Without one, it blocks until the client side is closed.
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatalf("clear deadline: %v", err)
	}
	res = linkTestReadAsync(c)
	linkTestExpectBlocked(t, res)

	// Moving the deadline while a read waits is honoured.
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatalf("set deadline: %v", err)
	}
	if err := linkTestExpectReadFails(t, res); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read after deadline moved: %v, want a timeout", err)
	}

	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatalf("clear deadline: %v", err)
	}
	res = linkTestReadAsync(c)
	linkTestExpectBlocked(t, res)
	l.Restore()
	if err := linkTestExpectReadFails(t, res); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Restore: %v, want net.ErrClosed", err)
	}
}

func TestLinkDropReplyTo(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	fired := l.DropReplyTo(OpCreate, OpDelete)

	// Other opcodes pass.
	get := linkTestRequest(1, OpGetData, "/a")
	linkTestWrite(t, c, get)
	s.next()
	linkTestExpectFrame(t, c, get)
	select {
	case <-fired:
		t.Fatal("fault fired on a request it does not match")
	default:
	}

	// The matching request reaches the server; its reply never reaches the client.
	res := linkTestReadAsync(c)
	del := linkTestRequest(2, OpDelete, "/b")
	linkTestWrite(t, c, del)
	if got := s.next(); !bytes.Equal(got.raw, del) {
		t.Fatalf("server got %x, want the delete %x", got.raw, del)
	}
	select {
	case <-fired:
	case <-time.After(linkTestWait):
		t.Fatal("fault channel not closed after the request went out")
	}

	// Nothing written afterwards reaches the server.
	linkTestWrite(t, c, linkTestRequest(3, OpCreate, "/c"))
	s.expectNothing()

	// The client reads nothing and then gets an error.
	if err := linkTestExpectReadFails(t, res); err == nil {
		t.Fatal("read returned no error")
	}
	if got := l.Requests(OpDelete); got != 1 {
		t.Fatalf("Requests(OpDelete) = %d, want 1", got)
	}
	if got := l.Requests(OpCreate); got != 0 {
		t.Fatalf("Requests(OpCreate) = %d, want 0 (written after the fault)", got)
	}

	// One-shot: a new connection works and a matching request gets its reply.
	c2 := linkTestHandshake(t, l, s)
	cr := linkTestRequest(4, OpCreate, "/d")
	linkTestWrite(t, c2, cr)
	s.next()
	linkTestExpectFrame(t, c2, cr)
	if got := l.Requests(OpCreate); got != 1 {
		t.Fatalf("Requests(OpCreate) = %d, want 1", got)
	}
}

func TestLinkDropReplyToMidWrite(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	fired := l.DropReplyTo(OpSetData)

	// The frame before the target and the target itself go out; the frame
	// after it, in the same write, is dropped. The target is split so that
	// the fault triggers on its last byte.
	a := linkTestRequest(1, OpExists, "/a")
	b := linkTestRequest(2, OpSetData, "/b")
	d := linkTestRequest(3, OpExists, "/d")
	stream := bytes.Join([][]byte{a, b, d}, nil)
	split := len(a) + len(b) - 1
	linkTestWrite(t, c, stream[:split])
	select {
	case <-fired:
		t.Fatal("fault fired before the request was complete")
	default:
	}
	linkTestWrite(t, c, stream[split:])
	select {
	case <-fired:
	case <-time.After(linkTestWait):
		t.Fatal("fault did not fire")
	}
	for _, want := range [][]byte{a, b} {
		if got := s.next(); !bytes.Equal(got.raw, want) {
			t.Fatalf("server got %x, want %x", got.raw, want)
		}
	}
	s.expectNothing()
	if err := linkTestExpectReadFails(t, linkTestReadAsync(c)); err == nil {
		t.Fatal("read returned no error")
	}
	if got, want := l.Requests(OpExists), int64(1); got != want {
		t.Fatalf("Requests(OpExists) = %d, want %d", got, want)
	}
	if got, want := l.Requests(OpSetData), int64(1); got != want {
		t.Fatalf("Requests(OpSetData) = %d, want %d", got, want)
	}
}

func TestLinkDropReplyToOrder(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()

	setData := l.DropReplyTo(OpSetData)
	anything := l.DropReplyTo() // no ops: any request

	// The older fault does not match an exists request; the catch-all does.
	c := linkTestHandshake(t, l, s)
	a := linkTestRequest(1, OpExists, "/a")
	linkTestWrite(t, c, a)
	select {
	case <-anything:
	case <-time.After(linkTestWait):
		t.Fatal("the catch-all fault did not fire")
	}
	if got := s.next(); !bytes.Equal(got.raw, a) {
		t.Fatalf("server got %x, want %x", got.raw, a)
	}
	if err := linkTestExpectReadFails(t, linkTestReadAsync(c)); err == nil {
		t.Fatal("read returned no error")
	}
	select {
	case <-setData:
		t.Fatal("the setData fault fired on an exists request")
	default:
	}

	// The setData fault is still armed and fires on a later connection.
	c2 := linkTestHandshake(t, l, s)
	b := linkTestRequest(2, OpSetData, "/b")
	linkTestWrite(t, c2, b)
	select {
	case <-setData:
	case <-time.After(linkTestWait):
		t.Fatal("the setData fault did not fire")
	}
	if got := s.next(); !bytes.Equal(got.raw, b) {
		t.Fatalf("server got %x, want %x", got.raw, b)
	}
	if err := linkTestExpectReadFails(t, linkTestReadAsync(c2)); err == nil {
		t.Fatal("read returned no error")
	}

	// No fault is left: a third connection works normally.
	c3 := linkTestHandshake(t, l, s)
	linkTestWrite(t, c3, b)
	s.next()
	linkTestExpectFrame(t, c3, b)
}

func TestLinkClose(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	c := linkTestHandshake(t, l, s)

	// A dial hanging in a blackhole is released by Close.
	l.Blackhole()
	pending := make(chan error, 1)
	go func() {
		c, err := l.Dial("tcp", s.addr(), 0)
		if c != nil {
			_ = c.Close()
		}
		pending <- err
	}()
	select {
	case err := <-pending:
		t.Fatalf("dial with no timeout returned during blackhole: %v", err)
	case <-time.After(linkTestQuiet):
	}

	res := linkTestReadAsync(c)
	l.Close()
	l.Close() // idempotent
	select {
	case err := <-pending:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("dial released by Close: %v, want ErrClosed", err)
		}
	case <-time.After(linkTestWait):
		t.Fatal("dial still blocked after Close")
	}
	if err := linkTestExpectReadFails(t, res); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v, want net.ErrClosed", err)
	}

	// Nothing reopens a closed link.
	l.Restore()
	l.Blackhole()
	l.Cut()
	if _, err := l.Dial("tcp", s.addr(), linkTestWait); !errors.Is(err, ErrClosed) {
		t.Fatalf("dial after Close: %v, want ErrClosed", err)
	}
}

func TestLinkZeroValueAndBadDial(t *testing.T) {
	s := linkTestSetup(t)
	var l Link
	defer l.Close()
	if got := l.Requests(OpCreate); got != 0 {
		t.Fatalf("Requests on a zero Link = %d", got)
	}
	c, err := l.Dial("tcp", s.addr(), linkTestWait)
	if err != nil {
		t.Fatalf("dial on a zero Link: %v", err)
	}
	defer c.Close()
	if _, err := l.Dial("tcp", "127.0.0.1:bad-port", linkTestWait); err == nil {
		t.Fatal("dial to a bad address succeeded")
	}
	if _, err := l.Dial("no-such-network", s.addr(), linkTestWait); err == nil {
		t.Fatal("dial on a bad network succeeded")
	}
	if got := l.Dials(); got != 1 {
		t.Fatalf("Dials() = %d, want 1", got)
	}
}

func TestLinkDisarmAndRemote(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	if got := l.Remote(); got != "" {
		t.Fatalf("Remote() with no connection = %q, want \"\"", got)
	}
	c := linkTestHandshake(t, l, s)
	if got := l.Remote(); got != s.addr() {
		t.Fatalf("Remote() = %q, want %q", got, s.addr())
	}

	fired := l.DropReplyTo(OpCreate)
	l.DropReplyTo(OpDelete)
	if n := l.Disarm(); n != 2 {
		t.Fatalf("Disarm() = %d, want 2", n)
	}
	cr := linkTestRequest(1, OpCreate, "/a")
	linkTestWrite(t, c, cr)
	s.next()
	linkTestExpectFrame(t, c, cr) // the reply passes: the fault was disarmed
	select {
	case <-fired:
		t.Fatal("a disarmed fault fired")
	default:
	}
	if n := l.Disarm(); n != 0 {
		t.Fatalf("second Disarm() = %d, want 0", n)
	}

	l.Cut()
	if got := l.Remote(); got != "" {
		t.Fatalf("Remote() after Cut = %q, want \"\"", got)
	}
}

func TestLinkHoldRequest(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	fired, release := l.HoldRequest(OpCreateContainer)
	defer release()

	// Other opcodes pass.
	get := linkTestRequest(1, OpGetData, "/a")
	linkTestWrite(t, c, get)
	if got := s.next(); !bytes.Equal(got.raw, get) {
		t.Fatalf("server got %x, want the getData %x", got.raw, get)
	}

	// The matching request, and what follows it, wait for the release.
	cc := linkTestRequest(2, OpCreateContainer, "/p")
	del := linkTestRequest(3, OpDelete, "/p/n")
	wrote := make(chan error, 1)
	go func() {
		if _, err := c.Write(cc); err != nil {
			wrote <- err
			return
		}
		_, err := c.Write(del)
		wrote <- err
	}()
	select {
	case <-fired:
	case <-time.After(linkTestWait):
		t.Fatal("fault channel not closed once the request was held")
	}
	s.expectNothing()
	if got := l.Requests(OpCreateContainer); got != 0 {
		t.Fatalf("Requests(OpCreateContainer) = %d while held, want 0", got)
	}

	release()
	if err := <-wrote; err != nil {
		t.Fatalf("held writes failed after the release: %v", err)
	}
	for _, want := range [][]byte{cc, del} {
		if got := s.next(); !bytes.Equal(got.raw, want) {
			t.Fatalf("server got %x, want %x (in order)", got.raw, want)
		}
	}

	// One-shot; and a held write fails when its connection closes.
	linkTestWrite(t, c, linkTestRequest(4, OpCreateContainer, "/q"))
	s.next()
	fired2, release2 := l.HoldRequest()
	defer release2()
	failed := make(chan error, 1)
	go func() {
		_, err := c.Write(linkTestRequest(5, OpGetData, "/r"))
		failed <- err
	}()
	<-fired2
	_ = c.Close()
	select {
	case err := <-failed:
		if err == nil {
			t.Fatal("a held write returned no error after its connection closed")
		}
	case <-time.After(linkTestWait):
		t.Fatal("a held write did not return after its connection closed")
	}
	s.expectNothing()
}

// TestLinkCutDuring: the armed request reaches the server all but its last
// byte, then the connection closes; other requests pass; the fault is
// one-shot, and Disarm disarms one that never fired.
func TestLinkCutDuring(t *testing.T) {
	s := linkTestSetup(t)
	l := New()
	defer l.Close()
	c := linkTestHandshake(t, l, s)

	fired := l.CutDuring(OpSetWatches2)
	get := linkTestRequest(1, OpGetData, "/a")
	linkTestWrite(t, c, get)
	if got := s.next(); !bytes.Equal(got.raw, get) {
		t.Fatalf("server got %x, want the getData %x", got.raw, get)
	}
	sw := linkTestRequest(2, OpSetWatches2, "/watched")
	if _, err := c.Write(sw); err == nil {
		t.Fatal("the cut write returned no error")
	}
	select {
	case <-fired:
	case <-time.After(linkTestWait):
		t.Fatal("fault channel not closed")
	}
	s.expectNothing() // the server never got the whole frame
	if got := l.Requests(OpSetWatches2); got != 0 {
		t.Fatalf("Requests(OpSetWatches2) = %d for a cut request, want 0", got)
	}
	// The client's side of the link is closed.
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("a read after the cut succeeded")
	}

	l.CutDuring(OpSetWatches2)
	if n := l.Disarm(); n != 1 {
		t.Fatalf("Disarm = %d, want the one cut fault", n)
	}
}
