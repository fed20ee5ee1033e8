package wire

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// A link is one connection of a session: a writer goroutine that sends
// everything queued in one write, a reader goroutine that matches replies
// to requests in the order they were sent, and a watchdog.
//
// The watchdog: lastAcked is when the latest request (or ping) whose reply
// has arrived was sent. Once lastAcked + LiveNum/LiveDen x the negotiated
// timeout has passed, the link is dropped, whatever else the server sent
// meanwhile: notifications prove nothing about what the server received
// from us, which is all its expiry clock counts. The session is then
// Suspended at least (1 - LiveNum/LiveDen) x T before the server can expire it.
type link struct {
	c        *Conn
	nc       net.Conn
	timeout  time.Duration // negotiated
	limit    time.Duration // the watchdog's
	pingIdle time.Duration // a ping goes out after this long with nothing sent

	wake   chan struct{} // a request was queued
	broken chan struct{} // closed by breakWith
	once   sync.Once

	// guarded by c.mu
	queue     []*request // to write, in order
	spare     []*request // the writer's last batch, emptied: the next queue
	pending   []*request // written, awaiting their reply, in send order
	auths     []*request // auth packets written, awaiting their reply
	pings     []time.Time
	lastSent  time.Time
	lastAcked time.Time
	watchdog  *time.Timer
	stopped   bool // the watchdog is stopped for good
}

// request is one request and, once done closes, its outcome.
type request struct {
	op    int32
	xid   int32
	frame []byte // length, header and body
	// decode reads the reply (code is the reply header's error) on the
	// reader goroutine and returns the request's error. nil: the error
	// is code's, the body ignored.
	decode func(code int32, d *decoder) error

	// cred is an AddAuth's credential, kept (for every later connection)
	// by the reader the moment the server accepts it.
	cred *cred
	// claim settles, between a decoder that keeps state for its caller
	// (AddWatch) and a caller whose ctx ended, which came first.
	claim atomic.Int32

	sentAt time.Time
	report func(op int32, took time.Duration, err error) // Config.Request, once written
	done   chan struct{}
	err    error
	zxid   int64
}

// A request's claim.
const (
	claimOpen int32 = iota
	claimKept       // the decoder kept what it decoded: the reply is the outcome
	claimLeft       // the caller left (ctx ended): no one learns of the reply
)

func newRequest(op int32, decode func(code int32, d *decoder) error) *request {
	return &request{op: op, decode: decode, done: make(chan struct{})}
}

func (r *request) finish(zxid int64, err error) {
	if r.report != nil {
		r.report(r.op, time.Since(r.sentAt), err)
	}
	r.zxid, r.err = zxid, err
	close(r.done)
}

func newLink(c *Conn, nc net.Conn, timeout time.Duration) *link {
	limit := time.Duration(int64(timeout) * c.cfg.LiveNum / c.cfg.LiveDen)
	return &link{
		c:        c,
		nc:       nc,
		timeout:  timeout,
		limit:    limit,
		pingIdle: limit / 2, // T/3 for the default 2/3, as the Java client's readTimeout/2
		wake:     make(chan struct{}, 1),
		broken:   make(chan struct{}),
	}
}

// queueLocked queues r for the writer. c.mu must be held. Requests with an
// ordinary xid get the next one now, so xids go out in queue order.
func (l *link) queueLocked(frame []byte, r *request) {
	if r == nil {
		r = newRequest(opAuth, nil)
	}
	r.frame = frame
	switch r.op {
	case opAuth:
		r.xid = xidAuth
	case opSetWatches, opSetWatches2:
		r.xid = xidSetWatches
	default:
		l.c.xid = (l.c.xid + 1) & 0x7fffffff
		if l.c.xid == 0 {
			l.c.xid = 1
		}
		r.xid = l.c.xid
	}
	putXid(frame, r.xid)
	l.queue = append(l.queue, r)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func putXid(frame []byte, xid int32) {
	frame[4], frame[5], frame[6], frame[7] = byte(xid>>24), byte(xid>>16), byte(xid>>8), byte(xid)
}

// breakWith ends the link (the first cause is kept) and closes its socket.
func (l *link) breakWith(err error) {
	l.once.Do(func() {
		l.c.cfg.Logger.Debug("zookeeper connection ends", "server", l.c.Server(), "err", err)
		close(l.broken)
		_ = l.nc.Close()
	})
}

func (l *link) close() { l.breakWith(ErrClosing) }

// run runs the link until it breaks, and returns once its goroutines have ended.
func (l *link) run() {
	l.c.mu.Lock()
	now := time.Now()
	l.lastAcked, l.lastSent = now, now
	l.c.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		l.breakWith(l.read())
	}()
	go func() {
		defer wg.Done()
		l.write()
	}()
	l.c.mu.Lock()
	l.watchdog = time.AfterFunc(l.limit, l.check)
	l.c.mu.Unlock()
	wg.Wait()
	l.c.mu.Lock()
	l.stopped = true
	l.watchdog.Stop()
	l.c.mu.Unlock()
}

// check is the watchdog: it re-arms while replies keep acknowledging
// newer sends, and drops the link once none acknowledged anything sent in
// the last limit.
func (l *link) check() {
	l.c.mu.Lock()
	wait := time.Until(l.lastAcked.Add(l.limit))
	since := time.Since(l.lastAcked)
	if l.stopped {
		l.c.mu.Unlock()
		return
	}
	if wait > 0 {
		l.watchdog.Reset(wait)
		l.c.mu.Unlock()
		return
	}
	l.c.mu.Unlock()
	l.c.cfg.Logger.Warn("no reply to anything sent for 2/3 of the session timeout: dropping the connection before the server can expire the session",
		"since_last_acknowledged_send", since, "session_timeout", l.timeout)
	l.breakWith(fmt.Errorf("zkrecipes: no reply for %v", since))
}

// write sends what is queued, all of it in one write, and a ping after
// pingIdle with nothing sent.
func (l *link) write() {
	tick := time.NewTimer(l.pingIdle)
	defer tick.Stop()
	ping := make([]byte, 12)
	putLength(ping)
	putXid(ping, xidPing)
	ping[8], ping[9], ping[10], ping[11] = 0, 0, 0, byte(opPing)
	var bufs net.Buffers
	var scratch []byte
	for {
		pinging := false
		select {
		case <-l.broken:
			return
		case <-l.wake:
		case <-tick.C:
			pinging = true
		}
		l.c.mu.Lock()
		batch := l.queue
		l.queue, l.spare = l.spare[:0], nil
		now := time.Now()
		if pinging {
			// Due pingIdle after the last send: re-arm for then.
			if idle := now.Sub(l.lastSent); len(batch) > 0 {
				pinging = false
				tick.Reset(l.pingIdle) // the batch is the send
			} else if idle < l.pingIdle {
				pinging = false
				tick.Reset(l.pingIdle - idle)
			} else {
				tick.Reset(l.pingIdle)
			}
		}
		bufs = bufs[:0]
		for _, r := range batch {
			r.sentAt = now
			r.report = l.c.cfg.Request
			if r.op == opAuth {
				l.auths = append(l.auths, r)
			} else {
				l.pending = append(l.pending, r)
			}
			bufs = append(bufs, r.frame)
		}
		if pinging {
			l.pings = append(l.pings, now)
			bufs = append(bufs, ping)
		}
		if len(bufs) > 0 {
			l.lastSent = now
		}
		clear(batch)
		l.spare = batch[:0]
		l.c.mu.Unlock()
		if len(bufs) == 0 {
			continue
		}
		_ = l.nc.SetWriteDeadline(now.Add(l.limit))
		if err := l.send(&bufs, &scratch); err != nil {
			l.breakWith(err)
			return
		}
	}
}

// coalesceUpTo bounds the frames send copies into one buffer.
const coalesceUpTo = 64 << 10

// send writes the frames in one write: small batches copied into one
// buffer (a TLS connection or a wrapper would otherwise see a write per
// frame), large ones as net.Buffers (one writev on a TCP connection).
func (l *link) send(bufs *net.Buffers, scratch *[]byte) error {
	if len(*bufs) == 1 {
		_, err := l.nc.Write((*bufs)[0])
		return err
	}
	total := 0
	for _, b := range *bufs {
		total += len(b)
	}
	if total > coalesceUpTo {
		wb := *bufs // WriteTo consumes its receiver
		_, err := wb.WriteTo(l.nc)
		return err
	}
	s := (*scratch)[:0]
	for _, b := range *bufs {
		s = append(s, b...)
	}
	*scratch = s
	_, err := l.nc.Write(s)
	return err
}

// errProtocol is wrapped by the error of a link the server broke the
// protocol on: a reply out of order or to nothing sent.
var errProtocol = errors.New("zkrecipes: the server broke the protocol")

// read reads frames until the link breaks, and returns why.
func (l *link) read() error {
	var buf []byte
	d := new(decoder) // one for the link: each frame's decoding ends before the next is read
	for {
		body, err := readFrame(l.nc, buf, l.c.cfg.MaxFrame)
		if err != nil {
			return err
		}
		buf = body
		*d = decoder{b: body}
		h := decodeReplyHeader(d)
		if d.err != nil {
			return d.err
		}
		switch h.xid {
		case xidNotification:
			ev := decodeWatcherEvent(d)
			if d.err != nil {
				return d.err
			}
			l.c.notify(ev, h.zxid)
		case xidPing:
			l.c.mu.Lock()
			if len(l.pings) == 0 {
				l.c.mu.Unlock()
				return fmt.Errorf("%w: a ping reply to no ping", errProtocol)
			}
			l.ackLocked(l.pings[0])
			l.pings = l.pings[1:]
			l.c.mu.Unlock()
		case xidAuth:
			l.c.mu.Lock()
			if len(l.auths) == 0 {
				l.c.mu.Unlock()
				return fmt.Errorf("%w: an auth reply to no auth", errProtocol)
			}
			r := l.auths[0]
			l.auths = l.auths[1:]
			l.c.mu.Unlock()
			err := codeError(h.err)
			if err == nil && r.cred != nil {
				l.c.mu.Lock()
				l.c.creds = append(l.c.creds, *r.cred)
				l.c.mu.Unlock()
			}
			r.finish(h.zxid, err)
			if errors.Is(err, zk.ErrAuthFailed) {
				l.c.emit(zk.StateAuthFailed)
			}
		default:
			l.c.mu.Lock()
			if len(l.pending) == 0 || l.pending[0].xid != h.xid {
				want := "nothing"
				if len(l.pending) > 0 {
					want = fmt.Sprint(l.pending[0].xid)
				}
				l.c.mu.Unlock()
				return fmt.Errorf("%w: a reply to xid %d, expected %s", errProtocol, h.xid, want)
			}
			r := l.pending[0]
			// Shift down rather than reslice: the backing array keeps its
			// room, and the writer's appends need no new one.
			n := copy(l.pending, l.pending[1:])
			l.pending[n] = nil
			l.pending = l.pending[:n]
			l.ackLocked(r.sentAt)
			l.c.mu.Unlock()
			if h.zxid > 0 {
				l.c.lastZxid = h.zxid
			}
			var err error
			if r.decode != nil {
				err = r.decode(h.err, d)
			} else {
				err = codeError(h.err)
			}
			if d.err != nil {
				// The connection goes: the request's outcome is unknown, as
				// after any lost connection (and as retryable).
				r.finish(h.zxid, errors.Join(ErrConnectionClosed, d.err))
				return d.err
			}
			r.finish(h.zxid, err)
			if r.op == opCloseSession {
				return ErrClosing
			}
		}
	}
}

func (l *link) ackLocked(sent time.Time) {
	if sent.After(l.lastAcked) {
		l.lastAcked = sent
	}
}

// failPending fails every request the link still holds. Its goroutines
// have ended, and it is no longer the Conn's link.
func (l *link) failPending(err error) {
	l.c.mu.Lock()
	rs := append(append(append([]*request{}, l.pending...), l.auths...), l.queue...)
	l.pending, l.auths, l.queue = nil, nil, nil
	l.c.mu.Unlock()
	for _, r := range rs {
		r.finish(0, err)
	}
}
