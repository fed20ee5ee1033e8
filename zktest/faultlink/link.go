// Package faultlink puts one ZooKeeper client's network path under a test's
// control: a Link is a dialer (client.Dialer's shape, which is also
// go-zookeeper's zk.Dialer) whose connections the test can cut, blackhole or
// make lose the reply to one request, whose session the test can expire on
// the server, and which counts the client's requests by opcode. It refers to no ZooKeeper server of its own, so it works with
// any cluster (the zktest package's, or a real one), and faults on one
// link touch no other client.
//
//	link := faultlink.New()
//	defer link.Close() // after the client's Close
//	c, err := client.New(client.WithServers(addrs...), client.WithDialer(link.Dial))
//	...
//	err = c.Start(ctx)
//	defer c.Close()
//	...
//	link.DropReplyTo(faultlink.OpCreate) // the server creates, the client never hears back
//	link.Cut()                           // connection loss now; the session lives on
//	link.Restore()
//	err = link.ExpireSession(ctx)        // the server ends the session; the client sees it Lost
package faultlink

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"time"
)

var (
	// ErrCut is returned by Link.Dial while the link is cut.
	ErrCut = errors.New("faultlink: link is cut")
	// ErrBlackholed is wrapped by the timeout error Link.Dial returns
	// when its timeout expires while the link is blackholed.
	ErrBlackholed = errors.New("faultlink: link is blackholed")
	// ErrClosed is returned by Link.Dial once the link is closed.
	ErrClosed = errors.New("faultlink: link is closed")
)

// dropCloseDelay is how long a connection hit by a DropReplyTo fault stays
// open (muted) after the request went out, so that the server has processed
// the request before the client sees the connection fail.
const dropCloseDelay = 300 * time.Millisecond

// faultMode is the fault state of a whole link.
type faultMode int

const (
	modeNormal faultMode = iota
	modeCut
	modeBlackholed
	modeClosed
)

// Link wraps every connection one client dials, so a test can cut, blackhole
// or count that client's traffic without touching other clients.
//
// Give Link.Dial to the client as its dialer (client.WithDialer; it has
// the shape of go-zookeeper's zk.Dialer too). Create links with New; a
// Link must not be copied after first use. All methods are safe for
// concurrent use.
type Link struct {
	mu       sync.Mutex
	mode     faultMode
	changed  chan struct{} // closed and replaced on every mode change
	conns    map[*proxyConn]struct{}
	drops    []*dropFault
	holds    []*holdFault
	cuts     []*cutFault
	requests map[int32]int64
	dials    int64
	session  *sessionInfo // the newest session a server gave; nil before
}

// armed is what every armed request fault has: the opcodes it fires on
// (any, when none) and the channel closed when it fires.
type armed struct {
	ops   []int32
	fired chan struct{}
}

// matches reports whether the fault fires on a request with opcode op.
func (a *armed) matches(op int32) bool { return len(a.ops) == 0 || slices.Contains(a.ops, op) }

// dropFault is one armed DropReplyTo fault.
type dropFault struct{ armed }

// cutFault is one armed CutDuring fault.
type cutFault struct{ armed }

// holdFault is one armed HoldRequest fault.
type holdFault struct {
	armed
	release chan struct{}
	once    sync.Once
}

// takeArmed disarms and returns the oldest fault in *faults that fires on
// op, or nil.
func takeArmed[F interface{ matches(int32) bool }](l *Link, faults *[]F, op int32) F {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, f := range *faults {
		if f.matches(op) {
			*faults = slices.Delete(*faults, i, i+1)
			return f
		}
	}
	var none F
	return none
}

// New returns a link with no fault set. It does no I/O.
func New() *Link {
	l := &Link{}
	l.initLocked()
	return l
}

// initLocked makes the zero Link usable. l.mu must be held (or l unshared).
func (l *Link) initLocked() {
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	if l.conns == nil {
		l.conns = make(map[*proxyConn]struct{})
	}
	if l.requests == nil {
		l.requests = make(map[int32]int64)
	}
}

// notifyLocked wakes every Dial waiting for a mode change. l.mu must be held.
func (l *Link) notifyLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Dial is a zk.Dialer: it dials TCP (honouring timeout) unless the link is
// cut or closed, in which case it returns an error wrapping ErrCut or
// ErrClosed at once. While the link is blackholed it waits: it fails with
// a timeout error (wrapping ErrBlackholed and os.ErrDeadlineExceeded) when
// timeout expires, and dials as usual if the link is restored first. A
// timeout of zero or less means no timeout.
func (l *Link) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		l.mu.Lock()
		l.initLocked()
		mode, changed := l.mode, l.changed
		l.mu.Unlock()
		if mode != modeBlackholed {
			if err := modeErr(mode); err != nil {
				return nil, fmt.Errorf("faultlink: dial %s %s: %w", network, address, err)
			}
			break
		}
		if !waitChange(changed, deadline) {
			return nil, &dialTimeoutError{network: network, address: address}
		}
	}

	d := net.Dialer{Deadline: deadline}
	raw, err := d.Dial(network, address)
	if err != nil {
		return nil, err
	}
	c := &proxyConn{
		Conn:       raw,
		link:       l,
		addr:       address,
		closed:     make(chan struct{}),
		deadlineCh: make(chan struct{}, 1),
	}

	l.mu.Lock()
	if err := modeErr(l.mode); err != nil {
		l.mu.Unlock()
		_ = raw.Close()
		return nil, fmt.Errorf("faultlink: dial %s %s: %w", network, address, err)
	}
	if l.mode == modeBlackholed {
		// The partition began while the TCP handshake was under way.
		c.blackholed.Store(true)
	}
	l.conns[c] = struct{}{}
	l.dials++
	c.seq = l.dials
	l.mu.Unlock()
	return c, nil
}

// modeErr is the error Dial returns at once in mode, or nil.
func modeErr(mode faultMode) error {
	switch mode {
	case modeCut:
		return ErrCut
	case modeClosed:
		return ErrClosed
	default:
		return nil
	}
}

// waitChange waits for changed to be closed; it reports false if deadline
// (when not zero) passes first.
func waitChange(changed <-chan struct{}, deadline time.Time) bool {
	if deadline.IsZero() {
		<-changed
		return true
	}
	wait := time.Until(deadline)
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-changed:
		return true
	case <-t.C:
		return false
	}
}

// dialTimeoutError is the net.Error a dial gets when its timeout expires
// during a blackhole.
type dialTimeoutError struct {
	network, address string
}

// Error names the dial and both errors it wraps.
func (e *dialTimeoutError) Error() string {
	return fmt.Sprintf("faultlink: dial %s %s: %v: %v", e.network, e.address, ErrBlackholed, os.ErrDeadlineExceeded)
}

// Timeout reports true: the dial ran out of time.
func (e *dialTimeoutError) Timeout() bool { return true }

// Temporary reports true: the dial may work once the link is restored.
func (e *dialTimeoutError) Temporary() bool { return true }

// Is lets errors.Is match ErrBlackholed and os.ErrDeadlineExceeded.
func (e *dialTimeoutError) Is(target error) bool {
	return target == ErrBlackholed || target == os.ErrDeadlineExceeded
}

// Cut closes every open connection of this link and refuses new dials until
// Restore (the client sees connection loss at once; its session lives on the
// server until it times out). Cut does nothing once the link is closed.
func (l *Link) Cut() {
	l.mu.Lock()
	l.initLocked()
	if l.mode == modeClosed {
		l.mu.Unlock()
		return
	}
	l.mode = modeCut
	victims := l.takeLocked(func(*proxyConn) bool { return true })
	l.notifyLocked()
	l.mu.Unlock()
	closeAll(victims)
}

// Blackhole keeps connections open but silently drops everything in both
// directions and makes new dials hang until their timeout, as a network
// partition does; Restore ends it (existing blackholed connections are closed
// by Restore, so the client reconnects).
//
// While blackholed, writes report success and reads return no data; a read
// fails only when its deadline passes or the connection is closed on the
// client's side, never because of anything the server does. Blackhole does
// nothing once the link is closed.
func (l *Link) Blackhole() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initLocked()
	if l.mode == modeClosed {
		return
	}
	l.mode = modeBlackholed
	for c := range l.conns {
		c.blackholed.Store(true)
	}
	l.notifyLocked()
}

// Restore ends a Cut or Blackhole: dials work again, and connections that
// were blackholed are closed so that the client reconnects. Armed DropReplyTo
// faults stay armed. Restore does nothing once the link is closed.
func (l *Link) Restore() {
	l.mu.Lock()
	l.initLocked()
	if l.mode == modeClosed {
		l.mu.Unlock()
		return
	}
	l.mode = modeNormal
	victims := l.takeLocked(func(c *proxyConn) bool { return c.blackholed.Load() })
	l.notifyLocked()
	l.mu.Unlock()
	closeAll(victims)
}

// Close is like Cut, permanently: it closes every open connection, fails
// dials under way or to come with ErrClosed, and makes Cut, Blackhole and
// Restore do nothing. It is idempotent. Armed DropReplyTo faults that never
// fired keep their channels open.
func (l *Link) Close() {
	l.mu.Lock()
	l.initLocked()
	if l.mode == modeClosed {
		l.mu.Unlock()
		return
	}
	l.mode = modeClosed
	victims := l.takeLocked(func(*proxyConn) bool { return true })
	l.notifyLocked()
	l.mu.Unlock()
	closeAll(victims)
}

// takeLocked removes and returns the open connections that match pick.
// l.mu must be held.
func (l *Link) takeLocked(pick func(*proxyConn) bool) []*proxyConn {
	var out []*proxyConn
	for c := range l.conns {
		if pick(c) {
			out = append(out, c)
			delete(l.conns, c)
		}
	}
	return out
}

// closeAll closes conns; it must be called without l.mu held.
func closeAll(conns []*proxyConn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// forget drops c from the set of open connections.
func (l *Link) forget(c *proxyConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// DropReplyTo arms a one-shot fault: the next request whose opcode is one of
// ops (any request at all when ops is empty), on any connection of this link,
// is delivered to the server, but the client never sees its reply: from that
// write on, nothing more from the server reaches the client on that
// connection, nothing more the client writes on it reaches the server, and
// the connection is closed shortly after (300ms, long enough for the server
// to have processed the request). Replies to earlier requests that the client
// has not read by then are lost too. It returns a channel closed once the
// request went out. Faults armed by several calls fire independently, oldest
// first; a fault that never fires keeps its channel open.
func (l *Link) DropReplyTo(ops ...int32) <-chan struct{} {
	d := &dropFault{newArmed(ops)}
	addFault(l, &l.drops, d)
	return d.fired
}

// HoldRequest arms a fault: the next request the client writes with one of
// ops (any request at all when ops is empty), on any connection of this
// link, is held back until release is called or the connection closes, as
// if it had not left the client yet; so is everything the client writes on
// that connection after it, in order. (A write that carries several
// requests, as the client's batching writer sends them, is held whole.)
// Nothing is lost: on release the held bytes go to the server. fired
// is closed once a request is held. Calling release more than once, or
// before the fault fired (it then passes the request at once), is
// harmless. Disarm does not touch hold faults.
func (l *Link) HoldRequest(ops ...int32) (fired <-chan struct{}, release func()) {
	h := &holdFault{armed: newArmed(ops), release: make(chan struct{})}
	addFault(l, &l.holds, h)
	return h.fired, func() { h.once.Do(func() { close(h.release) }) }
}

// CutDuring arms a one-shot fault: the next request the client writes with
// one of ops (any request at all when ops is empty), on any connection of
// this link, is cut off midway: the link passes all of it to the server but
// its last byte, then closes the connection, as a link that fails while the
// request is being written. A request that starts in an earlier write has
// its beginning sent already. fired is closed when the fault fires.
// Disarm disarms cut faults that have not fired too.
func (l *Link) CutDuring(ops ...int32) (fired <-chan struct{}) {
	k := &cutFault{newArmed(ops)}
	addFault(l, &l.cuts, k)
	return k.fired
}

// newArmed is a fault that fires on ops (on any request when empty).
func newArmed(ops []int32) armed { return armed{ops: slices.Clone(ops), fired: make(chan struct{})} }

// addFault arms f, last in *faults.
func addFault[F any](l *Link, faults *[]F, f F) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initLocked()
	*faults = append(*faults, f)
}

// takeCut disarms and returns the oldest armed cut fault matching op, if any.
func (l *Link) takeCut(op int32) *cutFault { return takeArmed(l, &l.cuts, op) }

// takeHold disarms and returns the oldest armed hold fault matching op, if
// any.
func (l *Link) takeHold(op int32) *holdFault { return takeArmed(l, &l.holds, op) }

// Disarm disarms every DropReplyTo and CutDuring fault that has not fired
// yet (their channels stay open) and returns how many there were.
func (l *Link) Disarm() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.drops) + len(l.cuts)
	l.drops, l.cuts = nil, nil
	return n
}

// Remote returns the address the newest open connection was dialed to, or
// "" when the link has none open.
func (l *Link) Remote() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var newest *proxyConn
	for c := range l.conns {
		if newest == nil || c.seq > newest.seq {
			newest = c
		}
	}
	if newest == nil {
		return ""
	}
	return newest.addr
}

// takeDrop disarms and returns the oldest armed fault matching op, if any.
func (l *Link) takeDrop(op int32) *dropFault { return takeArmed(l, &l.drops, op) }

// Requests returns how many requests with this opcode the client has sent
// through the link so far (all connections). A request counts once all its
// bytes went to the server; requests swallowed by a blackhole or written
// after a DropReplyTo fault muted the connection do not count.
func (l *Link) Requests(op int32) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests[op]
}

// Dials returns how many dials through the link have succeeded so far.
func (l *Link) Dials() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dials
}

// count records the requests in frames as sent.
func (l *Link) count(frames []frame) {
	if len(frames) == 0 {
		return
	}
	l.mu.Lock()
	l.initLocked()
	for _, f := range frames {
		l.requests[f.op]++
	}
	l.mu.Unlock()
}
