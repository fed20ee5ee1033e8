package wire_test

// A raw-bytes server standing in for a broken or hostile ZooKeeper: after
// each bad frame the Conn must drop the connection and dial again (or
// declare the session expired), without a panic, without the heap growing
// past the frame bound, with Close returning promptly and leaving none of
// its goroutines behind.

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
)

const (
	hostileSessionID = 0x1234
	hostileTimeoutMs = 2000
	// hostileHeapSlack is how far the heap may grow past the frame bound.
	hostileHeapSlack = 4 << 20
)

var hostilePasswd = []byte("0123456789abcdef")

// hostileHost always returns one address.
type hostileHost string

func (h hostileHost) Next() (string, bool) { return string(h), false }
func (h hostileHost) Connected()           {}

// hostileEnc builds frames as the server sends them.
type hostileEnc struct{ b []byte }

func (e *hostileEnc) i32(v int32) *hostileEnc {
	e.b = binary.BigEndian.AppendUint32(e.b, uint32(v))
	return e
}

func (e *hostileEnc) i64(v int64) *hostileEnc {
	e.b = binary.BigEndian.AppendUint64(e.b, uint64(v))
	return e
}

func (e *hostileEnc) bytes(v []byte) *hostileEnc {
	e.i32(int32(len(v)))
	e.b = append(e.b, v...)
	return e
}

func (e *hostileEnc) bool(v bool) *hostileEnc {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
	return e
}

func (e *hostileEnc) stat() *hostileEnc {
	e.i64(2).i64(2).i64(1).i64(1).i32(0).i32(0).i32(0).i64(0).i32(1).i32(0).i64(2)
	return e
}

// frame is e's bytes behind their length.
func (e *hostileEnc) frame() []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(e.b))), e.b...)
}

func hostileConnectResponse(timeoutMs int32, sessionID int64) []byte {
	e := &hostileEnc{}
	return e.i32(0).i32(timeoutMs).i64(sessionID).bytes(hostilePasswd).bool(false).frame()
}

func hostileReplyHeader(xid int32) *hostileEnc {
	return (&hostileEnc{}).i32(xid).i64(5).i32(0)
}

// hostileGetReply is a well-formed reply to a getData.
func hostileGetReply(xid int32) []byte {
	return hostileReplyHeader(xid).bytes([]byte("v")).stat().frame()
}

// hostileConnReq is the client's first frame, decoded.
type hostileConnReq struct {
	protocolVersion int32
	lastZxid        int64
	timeoutMs       int32
	sessionID       int64
	passwd          []byte
}

// hostileFrame is a request the client sent after the handshake.
type hostileFrame struct {
	xid, op int32
	body    []byte
}

// hostileReadFrame reads one frame the client sent.
func hostileReadFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 1<<20 {
		return nil, errors.New("client frame too long")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

func hostileReadConnect(r io.Reader) (hostileConnReq, error) {
	b, err := hostileReadFrame(r)
	if err != nil {
		return hostileConnReq{}, err
	}
	if len(b) < 4+8+4+8+4 {
		return hostileConnReq{}, errors.New("short connect request")
	}
	req := hostileConnReq{
		protocolVersion: int32(binary.BigEndian.Uint32(b)),
		lastZxid:        int64(binary.BigEndian.Uint64(b[4:])),
		timeoutMs:       int32(binary.BigEndian.Uint32(b[12:])),
		sessionID:       int64(binary.BigEndian.Uint64(b[16:])),
	}
	n := int(int32(binary.BigEndian.Uint32(b[24:])))
	if n > 0 && 28+n <= len(b) {
		req.passwd = b[28 : 28+n]
	}
	return req, nil
}

// hostileSession is one connection to the fake server.
type hostileSession struct {
	t    *testing.T
	nc   net.Conn
	wmu  sync.Mutex
	reqs chan hostileFrame // requests other than pings
	// hostile records when the hostile bytes went out.
	hostile chan time.Time
}

func (s *hostileSession) write(b []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, _ = s.nc.Write(b)
}

// sendHostile records the time and writes b (in that order: the client
// may drop the connection and dial again before Write returns).
func (s *hostileSession) sendHostile(b []byte) {
	select {
	case s.hostile <- time.Now():
	default:
	}
	s.write(b)
}

// handshake reads the connect request and answers with a valid session.
func (s *hostileSession) handshake() bool {
	req, err := hostileReadConnect(s.nc)
	if err != nil {
		s.t.Errorf("fake server: connect request: %v", err)
		return false
	}
	if req.protocolVersion != 0 || req.timeoutMs != hostileTimeoutMs || req.sessionID != 0 || len(req.passwd) != 16 {
		s.t.Errorf("fake server: first connect request %+v", req)
	}
	s.write(hostileConnectResponse(hostileTimeoutMs, hostileSessionID))
	return true
}

// serve reads the client's frames until the connection ends, answering
// pings and passing every other request to reqs.
func (s *hostileSession) serve() {
	for {
		b, err := hostileReadFrame(s.nc)
		if err != nil {
			return
		}
		if len(b) < 8 {
			s.t.Errorf("fake server: client frame of %d bytes", len(b))
			return
		}
		f := hostileFrame{xid: int32(binary.BigEndian.Uint32(b)), op: int32(binary.BigEndian.Uint32(b[4:])), body: b[8:]}
		if f.xid == -2 && f.op == 11 {
			s.write(hostileReplyHeader(-2).frame())
			continue
		}
		select {
		case s.reqs <- f:
		default:
			s.t.Errorf("fake server: request queue full")
		}
	}
}

// next returns the client's next request (not a ping).
func (s *hostileSession) next() (hostileFrame, bool) {
	select {
	case f := <-s.reqs:
		return f, true
	case <-time.After(5 * time.Second):
		s.t.Errorf("fake server: no request from the client")
		return hostileFrame{}, false
	}
}

// hostileServer accepts connections on 127.0.0.1:0: the first runs script,
// every later one reads the connect request, records it and never answers.
type hostileServer struct {
	t       *testing.T
	ln      net.Listener
	script  func(*hostileSession)
	accepts chan int
	hostile chan time.Time

	mu       sync.Mutex
	n        int
	conns    []net.Conn
	connects []hostileConnReq // later connections' connect requests
	wg       sync.WaitGroup
}

func startHostileServer(t *testing.T, script func(*hostileSession)) *hostileServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hostileServer{t: t, ln: ln, script: script, accepts: make(chan int, 100), hostile: make(chan time.Time, 1)}
	s.wg.Add(1)
	go s.accept()
	return s
}

func (s *hostileServer) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.n++
		n := s.n
		s.conns = append(s.conns, nc)
		s.mu.Unlock()
		select {
		case s.accepts <- n:
		default:
		}
		s.wg.Add(1)
		if n == 1 {
			go func() {
				defer s.wg.Done()
				s.script(&hostileSession{t: s.t, nc: nc, reqs: make(chan hostileFrame, 16), hostile: s.hostile})
			}()
			continue
		}
		go func() {
			defer s.wg.Done()
			req, err := hostileReadConnect(nc)
			if err == nil {
				s.mu.Lock()
				s.connects = append(s.connects, req)
				s.mu.Unlock()
			}
			_, _ = io.Copy(io.Discard, nc)
		}()
	}
}

func (s *hostileServer) addr() string { return s.ln.Addr().String() }

// close ends the listener and every connection, and waits for their goroutines.
func (s *hostileServer) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for _, nc := range s.conns {
		_ = nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// waitAccept waits for the n-th connection.
func (s *hostileServer) waitAccept(n int, within time.Duration) bool {
	deadline := time.After(within)
	for {
		select {
		case got := <-s.accepts:
			if got >= n {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// hostileRecorder records a Conn's events and log records.
type hostileRecorder struct {
	mu     sync.Mutex
	events []zk.Event
	logs   []string
	states chan zk.State
}

func (r *hostileRecorder) event(ev zk.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	if ev.Type == zk.EventSession {
		select {
		case r.states <- ev.State:
		default:
		}
	}
}

func (r *hostileRecorder) waitState(want zk.State, within time.Duration) bool {
	deadline := time.After(within)
	for {
		select {
		case s := <-r.states:
			if s == want {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func (r *hostileRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *hostileRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.logs = append(r.logs, rec.Message)
	r.mu.Unlock()
	return nil
}
func (r *hostileRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *hostileRecorder) WithGroup(string) slog.Handler      { return r }

func (r *hostileRecorder) watchdogFired() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.logs {
		if strings.Contains(m, "no reply") {
			return true
		}
	}
	return false
}

// hostileSetEvent sets cfg.Event to a func that passes each event to rec.
func hostileSetEvent(cfg *wire.Config, rec func(zk.Event)) {
	cfg.Event = func(ev zk.Event, _ int64) { rec(ev) }
}

func hostileHeap() runtime.MemStats {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms
}

type hostileCase struct {
	name string
	// script runs the first connection. A case with gets > 0 has it
	// answer the handshake and serve first.
	script func(*hostileSession)
	// gets is how many Gets the test issues once the session is up.
	gets int
	// wantGetErr is what each Get must fail with.
	wantGetErr error
	// expired: the case ends with zk.StateExpired (a new dial follows).
	expired bool
	// noSession: the handshake never completes on the first connection.
	noSession bool
	// hang: the server never answers; the test only closes the Conn.
	hang bool
}

// hostileAfterSession is a script that grants the session, serves, and then
// calls bad with the session.
func hostileAfterSession(bad func(*hostileSession)) func(*hostileSession) {
	return func(s *hostileSession) {
		if !s.handshake() {
			return
		}
		go s.serve()
		bad(s)
	}
}

func TestHostileServer(t *testing.T) {
	garbage := make([]byte, 16<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	// The same garbage as one frame of the right length: a reply header
	// and body of random bytes.
	framedGarbage := append(binary.BigEndian.AppendUint32(nil, uint32(len(garbage)-4)), garbage[4:]...)

	cases := []hostileCase{
		{
			name: "reply to an xid never sent",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if r, ok := s.next(); ok {
					s.sendHostile(hostileGetReply(r.xid + 1000))
				}
			}),
		},
		{
			name: "reply to the later of two requests first",
			gets: 2, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				_, ok1 := s.next()
				r2, ok2 := s.next()
				if ok1 && ok2 {
					s.sendHostile(hostileGetReply(r2.xid))
				}
			}),
		},
		{
			name: "reply with an unknown special xid (-3)",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile(hostileGetReply(-3))
				}
			}),
		},
		{
			name: "auth reply with no auth sent (xid -4)",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile(hostileReplyHeader(-4).frame())
				}
			}),
		},
		{
			name: "ping reply with no ping sent (xid -2)",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile(hostileReplyHeader(-2).frame())
				}
			}),
		},
		{
			name: "frame length over the bound (0x7ffffff0)",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile([]byte{0x7f, 0xff, 0xff, 0xf0, 0, 0, 0, 0})
				}
			}),
		},
		{
			name: "frame length just over the bound (DefaultMaxFrame+1)",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile(binary.BigEndian.AppendUint32(nil, wire.DefaultMaxFrame+1))
				}
			}),
		},
		{
			name: "negative frame length",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile([]byte{0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0})
				}
			}),
		},
		{
			name: "notification path length past its frame",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					e := hostileReplyHeader(-1).i32(int32(zk.EventNodeDataChanged)).i32(int32(zk.StateSyncConnected))
					e.i32(1000)
					e.b = append(e.b, "/abcd"...)
					s.sendHostile(e.frame())
				}
			}),
		},
		{
			name: "notification path length 0x7ffffff0",
			script: hostileAfterSession(func(s *hostileSession) {
				e := hostileReplyHeader(-1).i32(int32(zk.EventNodeDataChanged)).i32(int32(zk.StateSyncConnected))
				e.i32(0x7ffffff0)
				s.sendHostile(e.frame())
			}),
		},
		{
			name: "getData reply whose data length is past its frame",
			gets: 1, wantGetErr: wire.ErrMalformed,
			script: hostileAfterSession(func(s *hostileSession) {
				if r, ok := s.next(); ok {
					s.sendHostile(hostileReplyHeader(r.xid).i32(0x7ffffff0).stat().frame())
				}
			}),
		},
		{
			name: "truncated frame (length 100, 10 bytes, close)",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					b := binary.BigEndian.AppendUint32(nil, 100)
					s.sendHostile(append(b, make([]byte, 10)...))
					_ = s.nc.Close()
				}
			}),
		},
		{
			name: "16 KiB of random garbage",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile(garbage)
				}
			}),
		},
		{
			name: "16 KiB of random garbage as one frame",
			gets: 1, wantGetErr: wire.ErrConnectionClosed,
			script: hostileAfterSession(func(s *hostileSession) {
				if _, ok := s.next(); ok {
					s.sendHostile(framedGarbage)
				}
			}),
		},
		{
			name: "handshake: timeout 0 with a session id (expired)", expired: true, noSession: true,
			script: func(s *hostileSession) {
				if _, err := hostileReadConnect(s.nc); err == nil {
					s.sendHostile(hostileConnectResponse(0, hostileSessionID))
				}
				_, _ = io.Copy(io.Discard, s.nc)
			},
		},
		{
			name: "handshake: negative timeout with a session id (expired)", expired: true, noSession: true,
			script: func(s *hostileSession) {
				if _, err := hostileReadConnect(s.nc); err == nil {
					s.sendHostile(hostileConnectResponse(-5, hostileSessionID))
				}
				_, _ = io.Copy(io.Discard, s.nc)
			},
		},
		{
			name: "handshake: truncated (3 bytes, close)", noSession: true,
			script: func(s *hostileSession) {
				if _, err := hostileReadConnect(s.nc); err == nil {
					s.sendHostile([]byte{0, 0, 0})
				}
				_ = s.nc.Close()
			},
		},
		{
			name: "handshake: frame length 0x7ffffff0", noSession: true,
			script: func(s *hostileSession) {
				if _, err := hostileReadConnect(s.nc); err == nil {
					s.sendHostile([]byte{0x7f, 0xff, 0xff, 0xf0})
				}
				_, _ = io.Copy(io.Discard, s.nc)
			},
		},
		{
			name: "handshake: passwd length past its frame", noSession: true,
			script: func(s *hostileSession) {
				if _, err := hostileReadConnect(s.nc); err == nil {
					e := &hostileEnc{}
					e.i32(0).i32(hostileTimeoutMs).i64(hostileSessionID).i32(0x7ffffff0)
					s.sendHostile(e.frame())
				}
				_, _ = io.Copy(io.Discard, s.nc)
			},
		},
		{
			name: "handshake never answered", hang: true, noSession: true,
			script: func(s *hostileSession) {
				_, _ = io.Copy(io.Discard, s.nc)
			},
		},
		{
			name: "session up, requests never answered (Close's closeSession too)", hang: true,
			gets: 1, wantGetErr: wire.ErrClosing,
			script: hostileAfterSession(func(*hostileSession) {}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runHostile(t, tc) })
	}
}

func runHostile(t *testing.T, tc hostileCase) {
	ignore := goleak.IgnoreCurrent()
	before := hostileHeap()

	srv := startHostileServer(t, tc.script)
	rec := &hostileRecorder{states: make(chan zk.State, 100)}
	cfg := wire.Config{
		Hosts:          hostileHost(srv.addr()),
		SessionTimeout: hostileTimeoutMs * time.Millisecond,
		Dial:           net.DialTimeout,
		Logger:         slog.New(rec),
	}
	hostileSetEvent(&cfg, rec.event)
	c := wire.Dial(cfg)
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
		srv.close()
	}()

	if !tc.noSession && !rec.waitState(zk.StateHasSession, 5*time.Second) {
		t.Fatal("no session from the fake server's handshake")
	}
	getErrs := make(chan error, tc.gets)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	for range tc.gets {
		go func() {
			_, _, err := c.Get(ctx, "/x")
			getErrs <- err
		}()
	}

	var dropAfter time.Duration
	switch {
	case tc.hang:
		time.Sleep(300 * time.Millisecond)
	case tc.expired:
		if !rec.waitState(zk.StateExpired, 5*time.Second) {
			t.Fatal("the session was not declared expired")
		}
		if id := c.SessionID(); id != 0 {
			t.Errorf("SessionID after expiry = %#x", id)
		}
		if !srv.waitAccept(2, 5*time.Second) {
			t.Error("no new connection after the expiry")
		}
	default:
		if !srv.waitAccept(2, 5*time.Second) {
			t.Fatal("the connection was not dropped and made again")
		}
		select {
		case at := <-srv.hostile:
			dropAfter = time.Since(at)
		default:
			t.Fatal("the connection was dropped before the hostile bytes were sent")
		}
		if rec.watchdogFired() {
			t.Errorf("the watchdog dropped the connection, not the hostile bytes (%v after them)", dropAfter)
		}
	}

	if !tc.hang {
		for range tc.gets {
			select {
			case err := <-getErrs:
				if !errors.Is(err, tc.wantGetErr) {
					t.Errorf("Get: %v, want %v", err, tc.wantGetErr)
				}
			case <-time.After(3 * time.Second):
				t.Error("Get did not return after the connection dropped")
			}
		}
	}

	mid := hostileHeap()
	grew := int64(mid.HeapAlloc) - int64(before.HeapAlloc)
	if grew > wire.DefaultMaxFrame+hostileHeapSlack {
		t.Errorf("heap grew %d bytes (bound %d)", grew, wire.DefaultMaxFrame+hostileHeapSlack)
	}
	// What was allocated and freed meanwhile: a frame's buffer at most,
	// never what a hostile length asks for.
	if total := mid.TotalAlloc - before.TotalAlloc; total > wire.DefaultMaxFrame+4*hostileHeapSlack {
		t.Errorf("allocated %d bytes in all (bound %d)", total, wire.DefaultMaxFrame+4*hostileHeapSlack)
	}

	start := time.Now()
	c.Close()
	closed = true
	took := time.Since(start)
	if took > 3*time.Second {
		t.Errorf("Close took %v", took)
	}
	if tc.hang {
		for range tc.gets {
			select {
			case err := <-getErrs:
				if !errors.Is(err, tc.wantGetErr) {
					t.Errorf("Get: %v, want %v", err, tc.wantGetErr)
				}
			case <-time.After(3 * time.Second):
				t.Error("Get did not return after Close")
			}
		}
	}
	srv.close()

	srv.mu.Lock()
	connects := append([]hostileConnReq{}, srv.connects...)
	srv.mu.Unlock()
	// A new connection after a drop offers the session back; after an
	// expiry (or before any session) it asks for a new one.
	for _, req := range connects {
		switch {
		case tc.expired || tc.noSession:
			if req.sessionID != 0 {
				t.Errorf("reconnect after %s offered session %#x", tc.name, req.sessionID)
			}
		case req.sessionID != hostileSessionID || string(req.passwd) != string(hostilePasswd):
			t.Errorf("reconnect offered session %#x passwd %q, want %#x %q", req.sessionID, req.passwd, hostileSessionID, hostilePasswd)
		}
	}

	t.Logf("dropped %v after the hostile bytes; Close %v; heap %+d bytes (TotalAlloc %+d); %d reconnects",
		dropAfter, took, grew, mid.TotalAlloc-before.TotalAlloc, len(connects))
	goleak.VerifyNone(t, ignore)
}
