package wire

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// A link is one connection of a session: a writer goroutine that sends
// everything queued in one write, a reader goroutine that matches replies
// to requests in the order they were sent, and a watchdog.
//
// A caller that queues a request while no write is under way, and could
// wait for its reply forever anyway (its ctx never ends), writes the batch
// itself (see flushLocked): such a request costs no hand-off to the writer
// goroutine, which sends everything else: what other callers queue, the
// batches that could block, and the pings. A caller whose ctx can end never
// writes: a write can block (a full socket buffer, a wrapping net.Conn that
// holds it), and the caller must return the moment its ctx ends.
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

	wake   chan struct{} // something is queued for the writer goroutine
	broken chan struct{} // closed by breakWith
	once   sync.Once

	// guarded by c.mu
	out       encoder    // the frames of queue, in order, to write
	spareOut  []byte     // the last write's buffer, emptied: the next out
	queue     []*request // to write, in order
	pending   fifo       // written, awaiting their reply, in send order
	auths     fifo       // auth packets written, awaiting their reply
	writing   bool       // a write is under way (by a caller or the writer goroutine)
	queued    int64      // bytes of every frame ever queued on the link
	sent      int64      // of those, the bytes handed to a write
	acked     int64      // of those, the bytes through the last request answered
	pings     []time.Time
	lastSent  time.Time
	lastAcked time.Time
	watchdog  *time.Timer
	stopped   bool // the watchdog is stopped for good
}

// directWriteUpTo bounds the bytes a caller writes itself: sent but not yet
// answered, plus its batch. Below it the write does not wait for room in
// the socket's buffers (the server has read everything but that much);
// past it, the writer goroutine writes.
const directWriteUpTo = 64 << 10

// keepOutUpTo bounds the write buffer kept from one write to the next (a
// larger batch, a tree's load say, gets a buffer of its own).
const keepOutUpTo = 16 << 10

// replyKind says how the reader decodes a successful reply into the
// request's own fields, for a request without a decode function.
type replyKind uint8

const (
	replyNone     replyKind = iota // nothing but the error code
	replyStat                      // a Stat: setData, exists
	replyData                      // data and a Stat: getData
	replyChildren                  // names and a Stat: getChildren2
	replyPath                      // a path: create, sync
	replyPathStat                  // a path and a Stat: create2, createContainer, createTTL
)

// request is one request and, once finished, its outcome. The common
// requests come from a pool (getRequest) and go back to it once their
// caller has read the outcome (release).
type request struct {
	op   int32
	xid  int32
	kind replyKind
	// watch, when watching, is the one-shot watch the reply sets on path
	// (exists sets an existence watch instead on a missing node).
	watching bool
	watch    watchKind
	path     string
	// decode reads the reply (code is the reply header's error) on the
	// reader goroutine and returns the request's error. nil: kind says.
	decode func(code int32, d *decoder) error

	// cred is an AddAuth's credential, kept (for every later connection)
	// by the reader the moment the server accepts it.
	cred *cred
	// claim settles, between a decoder that keeps state for its caller
	// (AddWatch) and a caller whose ctx ended, which came first.
	claim atomic.Int32

	end    int64 // the link's queued count through this request's frame
	sentAt time.Time
	report func(op int32, took time.Duration, err error) // Config.Request, once written
	done   chan struct{}                                 // gets one value when the request is finished
	err    error
	zxid   int64

	// What a reply of kind said.
	data []byte
	kids []string
	str  string
	stat zk.Stat
	ch   <-chan zk.Event // the watch set

	// An asynchronous read (Conn.Reads): adone gets areply when finished.
	adone  func(*access.Reply)
	areply access.Reply
}

// A request's claim.
const (
	claimOpen int32 = iota
	claimKept       // the decoder kept what it decoded: the reply is the outcome
	claimLeft       // the caller left (ctx ended): no one learns of the reply
)

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// newRequest returns a request of op whose reply decode reads (nil: by kind).
func newRequest(op int32, decode func(code int32, d *decoder) error) *request {
	r := requestPool.Get().(*request)
	r.op, r.decode = op, decode
	return r
}

// release returns r to the pool. Only its caller may, and only once it has
// its outcome from done: the link has let go of it by then.
func (r *request) release() {
	done := r.done
	*r = request{}
	r.done = done
	requestPool.Put(r)
}

// finish settles r; nothing of the link touches r afterwards. An
// asynchronous read's callback is called here, and r goes back to the pool.
func (r *request) finish(zxid int64, err error) {
	if r.report != nil {
		r.report(r.op, time.Since(r.sentAt), err)
	}
	r.zxid, r.err = zxid, err
	if done := r.adone; done != nil {
		a := &r.areply
		a.Err = err
		if err == nil {
			a.Data, a.Kids, a.Stat = r.data, r.kids, r.stat
		}
		done(a)
		r.release()
		return
	}
	r.done <- struct{}{}
}

// fifo is a queue of requests in a ring, which keeps its room.
type fifo struct {
	buf     []*request
	head, n int
}

func (f *fifo) len() int { return f.n }

func (f *fifo) push(r *request) {
	if f.n == len(f.buf) {
		buf := make([]*request, max(16, 2*len(f.buf)))
		for i := range f.n {
			buf[i] = f.buf[(f.head+i)%len(f.buf)]
		}
		f.buf, f.head = buf, 0
	}
	f.buf[(f.head+f.n)%len(f.buf)] = r
	f.n++
}

// peek returns the oldest request, or nil.
func (f *fifo) peek() *request {
	if f.n == 0 {
		return nil
	}
	return f.buf[f.head]
}

func (f *fifo) pop() *request {
	r := f.buf[f.head]
	f.buf[f.head] = nil
	f.head = (f.head + 1) % len(f.buf)
	f.n--
	return r
}

// drain empties f, appending its requests to out in order.
func (f *fifo) drain(out []*request) []*request {
	for f.n > 0 {
		out = append(out, f.pop())
	}
	return out
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

// queueLocked encodes r's frame (length, header, and the body body writes;
// none when nil) at the end of the link's output, and queues r. c.mu must
// be held. Requests with an ordinary xid get the next one now, so xids go
// out in queue order. Nothing is written yet: see flushLocked and wakeLocked.
func (l *link) queueLocked(r *request, body func(*encoder)) {
	l.xidLocked(r)
	start := len(l.out.b)
	l.out.b = append(l.out.b, 0, 0, 0, 0)
	l.out.int32(r.xid)
	l.out.int32(r.op)
	if body != nil {
		body(&l.out)
	}
	putLength(l.out.b[start:])
	l.pushLocked(r, len(l.out.b)-start)
}

// queueFrameLocked is queueLocked of a frame encoded already (with room
// for its xid, which is set here).
func (l *link) queueFrameLocked(r *request, frame []byte) {
	l.xidLocked(r)
	start := len(l.out.b)
	l.out.b = append(l.out.b, frame...)
	putXid(l.out.b[start:], r.xid)
	l.pushLocked(r, len(frame))
}

func (l *link) xidLocked(r *request) {
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
}

func (l *link) pushLocked(r *request, size int) {
	l.queued += int64(size)
	r.end = l.queued
	l.queue = append(l.queue, r)
}

// wakeLocked has the writer goroutine write what is queued, unless a write
// is under way (whose writer then does).
func (l *link) wakeLocked() {
	if l.writing {
		return
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// flushLocked sends what is queued: on the caller's goroutine when direct
// (the caller would wait for its reply forever anyway), no write is under
// way and the batch is small (see directWriteUpTo), else by the writer
// goroutine. c.mu is held on entry and on return, but not during a write.
func (l *link) flushLocked(direct bool) {
	if l.writing {
		return // the write under way wakes the writer for the rest
	}
	if !direct || l.sent-l.acked+int64(len(l.out.b)) > directWriteUpTo {
		l.wakeLocked()
		return
	}
	now := time.Now()
	b := l.takeLocked(now)
	l.c.mu.Unlock()
	err := l.writeOut(b, now)
	l.c.mu.Lock()
	l.doneWritingLocked(b)
	if err != nil {
		l.c.mu.Unlock()
		l.breakWith(err)
		l.c.mu.Lock()
	}
}

// takeLocked starts a write of everything queued: the requests move to
// the pending FIFOs (in the order of their frames) and their frames'
// bytes are returned, the write's to own until doneWritingLocked.
func (l *link) takeLocked(now time.Time) []byte {
	for i, r := range l.queue {
		r.sentAt = now
		r.report = l.c.cfg.Request
		if r.op == opAuth {
			l.auths.push(r)
		} else {
			l.pending.push(r)
		}
		l.queue[i] = nil
	}
	l.queue = l.queue[:0]
	b := l.out.b
	l.out.b, l.spareOut = l.spareOut[:0], nil
	l.sent = l.queued
	l.writing = true
	if len(b) > 0 {
		l.lastSent = now
	}
	return b
}

// doneWritingLocked ends the write of b, keeping its buffer for the next,
// and has the writer goroutine send what was queued meanwhile.
func (l *link) doneWritingLocked(b []byte) {
	l.writing = false
	if cap(b) <= keepOutUpTo {
		l.spareOut = b[:0]
	}
	if len(l.queue) > 0 {
		l.wakeLocked()
	}
}

// writeOut writes b (one write: the frames of a batch go out together).
func (l *link) writeOut(b []byte, now time.Time) error {
	if len(b) == 0 {
		return nil
	}
	_ = l.nc.SetWriteDeadline(now.Add(l.limit))
	_, err := l.nc.Write(b)
	return err
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

// write sends what callers left queued, and a ping after pingIdle with
// nothing sent.
func (l *link) write() {
	tick := time.NewTimer(l.pingIdle)
	defer tick.Stop()
	var ping [12]byte
	putLength(ping[:])
	putXid(ping[:], xidPing)
	putOp(ping[:], opPing)
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
		now := time.Now()
		if l.writing {
			// A caller is writing: that is the send, and it wakes this
			// goroutine again for what is queued meanwhile.
			if pinging {
				tick.Reset(l.pingIdle)
			}
			l.c.mu.Unlock()
			continue
		}
		if pinging {
			// Due pingIdle after the last send: re-arm for then.
			if idle := now.Sub(l.lastSent); len(l.queue) > 0 {
				pinging = false
				tick.Reset(l.pingIdle) // the batch is the send
			} else if idle < l.pingIdle {
				pinging = false
				tick.Reset(l.pingIdle - idle)
			} else {
				tick.Reset(l.pingIdle)
			}
		}
		b := l.takeLocked(now)
		if pinging {
			l.pings = append(l.pings, now)
			b = append(b, ping[:]...)
			l.lastSent = now
		}
		l.c.mu.Unlock()
		err := l.writeOut(b, now)
		l.c.mu.Lock()
		l.doneWritingLocked(b)
		l.c.mu.Unlock()
		if err != nil {
			l.breakWith(err)
			return
		}
	}
}

// errProtocol is wrapped by the error of a link the server broke the
// protocol on: a reply out of order or to nothing sent.
var errProtocol = errors.New("zkrecipes: the server broke the protocol")

// readBufSize is the reader's buffer: one read takes in every frame the
// server has sent that fits, and a frame that does not fit gets a buffer
// of its own (bounded by MaxFrame).
const readBufSize = 16 << 10

// frameReader reads frames from a connection through a buffer, so that
// the replies that arrive together cost one read.
type frameReader struct {
	r          io.Reader
	buf        []byte
	start, end int    // buf[start:end] is read and not yet returned
	big        []byte // the last frame too large for buf, reused
}

// next returns the next frame's body, valid until the following call.
func (f *frameReader) next(maxFrame int) ([]byte, error) {
	if err := f.fill(4); err != nil {
		return nil, err
	}
	h := f.buf[f.start : f.start+4]
	n := int32(uint32(h[0])<<24 | uint32(h[1])<<16 | uint32(h[2])<<8 | uint32(h[3]))
	if n < 0 || int(n) > maxFrame {
		return nil, errors.Join(ErrMalformed, errFrameBound)
	}
	if 4+int(n) > len(f.buf) {
		// Too large for the buffer: what is buffered of it, then the rest.
		if cap(f.big) < int(n) {
			f.big = make([]byte, n)
		}
		body := f.big[:n]
		got := copy(body, f.buf[f.start+4:f.end])
		f.start, f.end = 0, 0
		if _, err := io.ReadFull(f.r, body[got:]); err != nil {
			return nil, err
		}
		return body, nil
	}
	if err := f.fill(4 + int(n)); err != nil {
		return nil, err
	}
	body := f.buf[f.start+4 : f.start+4+int(n)]
	f.start += 4 + int(n)
	return body, nil
}

// fill reads until want bytes (at most len(f.buf)) are buffered.
func (f *frameReader) fill(want int) error {
	if f.end-f.start >= want {
		return nil
	}
	switch {
	case f.start == f.end:
		f.start, f.end = 0, 0
	case f.start+want > len(f.buf): // no room after start: move the rest to the front
		f.end = copy(f.buf, f.buf[f.start:f.end])
		f.start = 0
	}
	for f.end-f.start < want {
		n, err := f.r.Read(f.buf[f.end:])
		f.end += n
		if err != nil {
			if f.end-f.start >= want {
				return nil
			}
			if err == io.EOF && f.end > f.start {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// read reads frames until the link breaks, and returns why.
func (l *link) read() error {
	fr := &frameReader{r: l.nc, buf: make([]byte, readBufSize)}
	d := new(decoder) // one for the link: each frame's decoding ends before the next is read
	for {
		body, err := fr.next(l.c.cfg.MaxFrame)
		if err != nil {
			return err
		}
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
			if l.auths.len() == 0 {
				l.c.mu.Unlock()
				return fmt.Errorf("%w: an auth reply to no auth", errProtocol)
			}
			r := l.auths.pop()
			l.acked = max(l.acked, r.end)
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
			r := l.pending.peek()
			if r == nil || r.xid != h.xid {
				want := "nothing"
				if r != nil {
					want = fmt.Sprint(r.xid)
				}
				l.c.mu.Unlock()
				return fmt.Errorf("%w: a reply to xid %d, expected %s", errProtocol, h.xid, want)
			}
			l.pending.pop()
			l.acked = max(l.acked, r.end)
			l.ackLocked(r.sentAt)
			l.c.mu.Unlock()
			if h.zxid > 0 {
				l.c.lastZxid = h.zxid
			}
			err := l.c.decodeReply(r, h.err, d)
			if d.err != nil {
				// The connection goes: the request's outcome is unknown, as
				// after any lost connection (and as retryable).
				r.finish(h.zxid, errors.Join(ErrConnectionClosed, d.err))
				return d.err
			}
			closing := r.op == opCloseSession // r is its caller's once finished
			r.finish(h.zxid, err)
			if closing {
				return ErrClosing
			}
		}
	}
}

// decodeReply reads a reply to r (code is its header's error) on the
// reader goroutine: into r's fields by r.kind, or by r.decode. It sets the
// one-shot watch r asks for, before the next frame is read (its
// notification cannot come ahead of it), and returns r's error.
func (c *Conn) decodeReply(r *request, code int32, d *decoder) error {
	if r.decode != nil {
		return r.decode(code, d)
	}
	if code != 0 {
		err := codeError(code)
		if r.watching {
			// exists watches a missing node for its creation; the other
			// reads set no watch when they fail.
			missing := r.watch == watchData && r.op == opExists && errors.Is(err, zk.ErrNoNode)
			r.ch = c.keepWatch(r, watchExist, missing)
		}
		return err
	}
	switch r.kind {
	case replyNone:
		return nil
	case replyStat:
		d.statInto(&r.stat)
	case replyData:
		r.data = d.buffer()
		d.statInto(&r.stat)
	case replyChildren:
		r.kids = d.names()
		d.statInto(&r.stat)
	case replyPath:
		r.str = d.string()
	case replyPathStat:
		r.str = d.string()
		d.statInto(&r.stat)
	}
	if r.watching {
		r.ch = c.keepWatch(r, r.watch, d.err == nil)
	}
	return d.err
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
	rs := l.auths.drain(l.pending.drain(nil))
	rs = append(rs, l.queue...)
	l.queue = nil
	l.out.b, l.spareOut = nil, nil
	l.c.mu.Unlock()
	l.c.unpendFailed(rs)
	for _, r := range rs {
		r.finish(0, err)
	}
}
