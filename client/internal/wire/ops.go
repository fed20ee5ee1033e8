package wire

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// Every call sends one request on the current connection and waits for
// its reply or ctx. Without a connection it fails at once with
// ErrConnectionClosed (ErrClosing once the Conn is closed). When ctx ends
// first, the call returns ctx's error at once; the request still goes on,
// and its late reply is dropped. Paths are absolute and sent as given.

// request sends one request (op, its body written by body) and waits;
// decode reads its reply on the reader goroutine (nil: the error code
// alone). When ctx ends first, its caller returns without reading what
// decode writes (every call here returns zero values with an error).
func (c *Conn) request(ctx context.Context, op int32, body func(*encoder), decode func(code int32, d *decoder) error) (int64, error) {
	r := newRequest(op, decode)
	settled, err := c.send(ctx, r, body, nil)
	if !settled {
		return 0, err
	}
	zxid := r.zxid
	r.release()
	return zxid, err
}

// call sends r (its body written by body) and waits. It returns r with its
// outcome, for the caller to read and release, or nil (and ctx's error)
// when ctx ended first: r is then the reader's, to drop.
func (c *Conn) call(ctx context.Context, r *request, body func(*encoder)) (*request, error) {
	settled, err := c.send(ctx, r, body, nil)
	if !settled {
		return nil, err
	}
	return r, err
}

// send queues r with its frame (body's encoding, or frame as encoded when
// not nil) and waits for its reply or ctx (see wait). A ctx that has ended
// already sends nothing. settled reports that r has its outcome (or was
// never sent).
func (c *Conn) send(ctx context.Context, r *request, body func(*encoder), frame []byte) (settled bool, _ error) {
	if err := ctx.Err(); err != nil {
		return true, err
	}
	c.mu.Lock()
	l, err := c.linkLocked()
	if err != nil {
		c.mu.Unlock()
		return true, err
	}
	if r.watching {
		c.watches.mu.Lock()
		c.watches.pendLocked(r)
		c.watches.mu.Unlock()
	}
	if frame != nil {
		l.queueFrameLocked(r, frame)
	} else {
		l.queueLocked(r, body)
	}
	l.flushLocked(ctx.Done() == nil)
	c.mu.Unlock()
	return wait(ctx, r)
}

// linkLocked returns the link to queue on, or why there is none.
func (c *Conn) linkLocked() (*link, error) {
	switch {
	case c.closing:
		return nil, ErrClosing
	case c.link == nil:
		return nil, ErrConnectionClosed
	}
	return c.link, nil
}

// wait waits for r's reply or ctx. When ctx ends first, r is marked left
// (its claim), unless its decoder claimed it first (see AddWatch): then the
// reply is the outcome. settled reports that r has its outcome; when not,
// r is the reader's.
func wait(ctx context.Context, r *request) (settled bool, _ error) {
	select {
	case <-r.done:
		return true, r.err
	case <-ctx.Done():
		select {
		case <-r.done: // the reply came too: it is the outcome
			return true, r.err
		default:
		}
		if r.claim.CompareAndSwap(claimOpen, claimLeft) {
			return false, ctx.Err()
		}
		<-r.done
		return true, r.err
	}
}

// CreateThenChildren is Create followed, in the same write, by Children of
// dir: the listing is the server's right after the create (a session's
// requests are answered in order), at no round trip of its own. A failed
// create leaves the listing's outcome as it is: listErr says.
func (c *Conn) CreateThenChildren(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, dir string) (created string, kids []string, listErr, err error) {
	if err := ctx.Err(); err != nil {
		return "", nil, err, err
	}
	cr := kindRequest(opCreate, replyPath, false, 0, "")
	lr := kindRequest(opGetChildren2, replyChildren, false, 0, "")
	c.mu.Lock()
	l, err := c.linkLocked()
	if err != nil {
		c.mu.Unlock()
		cr.release()
		lr.release()
		return "", nil, err, err
	}
	l.queueLocked(cr, func(e *encoder) { encodeCreate(e, path, data, acl, flags) })
	l.queueLocked(lr, func(e *encoder) { encodePathWatch(e, dir, false) })
	l.flushLocked(ctx.Done() == nil)
	c.mu.Unlock()
	// The listing's reply comes after the create's (or the two fail
	// together, in that order): one wait for both.
	settled, listErr := wait(ctx, lr)
	if settled {
		kids = lr.kids
		lr.release()
	}
	settled, err = wait(ctx, cr)
	if settled {
		created = cr.str
		cr.release()
	}
	if err != nil {
		created = ""
	}
	if listErr != nil {
		kids = nil
	}
	return created, kids, listErr, err
}

// Reads sends reads (getData, or getChildren2 with Children; no watch) in
// one batch, without waiting: done gets each one's reply, once, on the
// reader goroutine (or at once, on the caller's, when there is no
// connection), and must not block. full gives the path to send for a
// read's Path.
func (c *Conn) Reads(reads []access.Read, full func(string) string, done func(*access.Reply)) {
	c.mu.Lock()
	l, err := c.linkLocked()
	if err != nil {
		c.mu.Unlock()
		for _, rd := range reads {
			done(&access.Reply{Read: rd, Err: err})
		}
		return
	}
	for _, rd := range reads {
		op, kind := opGetData, replyData
		if rd.Children {
			op, kind = opGetChildren2, replyChildren
		}
		r := kindRequest(op, kind, false, 0, "")
		r.adone, r.areply.Read = done, rd
		p := full(rd.Path)
		l.queueLocked(r, func(e *encoder) { encodePathWatch(e, p, false) })
	}
	l.flushLocked(false) // the caller (a cache's loop) must not wait on a write
	c.mu.Unlock()
}

// requestFrame encodes a request: length, header (its xid is set when
// queued) and the body body writes (none when nil).
func requestFrame(op int32, body func(*encoder)) []byte {
	e := encoder{b: make([]byte, 12, 256)} // room for a create's path, ACL and a little data
	putOp(e.b, op)
	if body != nil {
		body(&e)
	}
	putLength(e.b)
	return e.b
}

// readInto returns a reply decoder that sets *out to what read reads from
// a successful reply's body.
func readInto[T any](out *T, read func(d *decoder) T) func(int32, *decoder) error {
	return func(code int32, d *decoder) error {
		if code != 0 {
			return codeError(code)
		}
		*out = read(d)
		return d.err
	}
}

// kindRequest returns a request of op whose reply is read by kind; with
// watch, it sets a one-shot watch of wk on path.
func kindRequest(op int32, kind replyKind, watch bool, wk watchKind, path string) *request {
	r := newRequest(op, nil)
	r.kind = kind
	if watch {
		r.watching, r.watch, r.path = true, wk, path
	}
	return r
}

// statCopy returns a copy of st for a caller.
func statCopy(st *zk.Stat) *zk.Stat {
	out := new(zk.Stat)
	*out = *st
	return out
}

// Get returns a node's data and stat.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	data, st, _, err := c.getData(ctx, path, false)
	return data, st, err
}

// GetW is Get that also leaves a data watch on the node.
func (c *Conn) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	return c.getData(ctx, path, true)
}

func (c *Conn) getData(ctx context.Context, path string, watch bool) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	data, _, st, ch, err := c.read(ctx, opGetData, replyData, watchData, path, watch)
	return data, st, ch, err
}

// read sends a getData or a getChildren2 (op, its reply's kind) of path,
// with a watch of kind wk when watch is set, and returns what the reply
// said.
func (c *Conn) read(ctx context.Context, op int32, kind replyKind, wk watchKind, path string, watch bool) ([]byte, []string, *zk.Stat, <-chan zk.Event, error) {
	r, err := c.call(ctx, kindRequest(op, kind, watch, wk, path),
		func(e *encoder) { encodePathWatch(e, path, watch) })
	if r == nil {
		return nil, nil, nil, nil, err
	}
	defer r.release()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return r.data, r.kids, statCopy(&r.stat), r.ch, nil
}

// Set writes a node's data if its version matches (-1 for any).
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	r, err := c.call(ctx, kindRequest(opSetData, replyStat, false, 0, ""),
		func(e *encoder) { encodeSetData(e, path, data, version) })
	if r == nil {
		return nil, err
	}
	defer r.release()
	if err != nil {
		return nil, err
	}
	return statCopy(&r.stat), nil
}

// Exists reports whether a node exists, with its stat when it does.
func (c *Conn) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	ok, st, _, err := c.exists(ctx, path, false)
	return ok, st, err
}

// ExistsW is Exists that leaves a watch, whether or not the node exists.
func (c *Conn) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	return c.exists(ctx, path, true)
}

func (c *Conn) exists(ctx context.Context, path string, watch bool) (bool, *zk.Stat, <-chan zk.Event, error) {
	// A data watch on a node found; decodeReply sets an existence watch on
	// a missing one.
	r, err := c.call(ctx, kindRequest(opExists, replyStat, watch, watchData, path),
		func(e *encoder) { encodePathWatch(e, path, watch) })
	if r == nil {
		return false, nil, nil, err
	}
	defer r.release()
	switch {
	case err == nil:
		return true, statCopy(&r.stat), r.ch, nil
	case errors.Is(err, zk.ErrNoNode):
		return false, nil, r.ch, nil
	}
	return false, nil, nil, err
}

// Children lists a node's children, with its stat.
func (c *Conn) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	kids, st, _, err := c.children(ctx, path, false)
	return kids, st, err
}

// ChildrenW is Children that leaves a child watch on the node.
func (c *Conn) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	return c.children(ctx, path, true)
}

func (c *Conn) children(ctx context.Context, path string, watch bool) ([]string, *zk.Stat, <-chan zk.Event, error) {
	_, kids, st, ch, err := c.read(ctx, opGetChildren2, replyChildren, watchChild, path, watch)
	return kids, st, ch, err
}

// Delete deletes a node if its version matches (-1 for any).
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	r, err := c.call(ctx, kindRequest(opDelete, replyNone, false, 0, ""),
		func(e *encoder) { encodePathVersion(e, path, version) })
	if r != nil {
		r.release()
	}
	return err
}

// Create creates a node (flags: go-zookeeper's zk.Flag* values) and returns
// its path (with the sequence number, for a sequential node).
func (c *Conn) Create(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	r, err := c.call(ctx, kindRequest(opCreate, replyPath, false, 0, ""),
		func(e *encoder) { encodeCreate(e, path, data, acl, flags) })
	if r == nil {
		return "", err
	}
	defer r.release()
	if err != nil {
		return "", err
	}
	return r.str, nil
}

// Create2 is Create that also returns the new node's Stat.
func (c *Conn) Create2(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, *zk.Stat, error) {
	return c.create2(ctx, opCreate2, func(e *encoder) { encodeCreate(e, path, data, acl, flags) })
}

// CreateContainer creates a container node (flags must be zk.FlagContainer).
func (c *Conn) CreateContainer(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	if flags != zk.FlagContainer {
		return "", zk.ErrInvalidFlags
	}
	out, _, err := c.create2(ctx, opCreateContainer, func(e *encoder) { encodeCreate(e, path, data, acl, flags) })
	return out, err
}

// CreateTTL creates a node that the server deletes once it has had no
// children and no change for ttl (flags zk.FlagTTL or
// zk.FlagPersistentSequentialWithTTL; the server needs
// zookeeper.extendedTypesEnabled).
func (c *Conn) CreateTTL(ctx context.Context, path string, data []byte, flags int32, acl []zk.ACL, ttl time.Duration) (string, error) {
	if flags != zk.FlagTTL && flags != zk.FlagPersistentSequentialWithTTL {
		return "", zk.ErrInvalidFlags
	}
	out, _, err := c.create2(ctx, opCreateTTL, func(e *encoder) { encodeCreateTTL(e, path, data, acl, flags, ttl.Milliseconds()) })
	return out, err
}

func (c *Conn) create2(ctx context.Context, op int32, body func(*encoder)) (string, *zk.Stat, error) {
	r, err := c.call(ctx, kindRequest(op, replyPathStat, false, 0, ""), body)
	if r == nil {
		return "", nil, err
	}
	defer r.release()
	if err != nil {
		return "", nil, err
	}
	return r.str, statCopy(&r.stat), nil
}

// Sync makes the server this session is connected to catch up with the
// leader, and returns the path.
func (c *Conn) Sync(ctx context.Context, path string) (string, error) {
	r, err := c.call(ctx, kindRequest(opSync, replyPath, false, 0, ""), func(e *encoder) { encodePath(e, path) })
	if r == nil {
		return "", err
	}
	defer r.release()
	if err != nil {
		return "", err
	}
	return r.str, nil
}

// Multi runs ops as one transaction: every op commits, or none does (see
// multi.go for the op types). On failure the error is the first failed
// op's, as go-zookeeper's, and the results say which op failed.
func (c *Conn) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	e := encoder{b: make([]byte, 12, 64)}
	putOp(e.b, opMulti)
	if err := encodeMulti(&e, ops); err != nil {
		return nil, err // nothing sent
	}
	putLength(e.b)
	var out []zk.MultiResponse
	r := newRequest(opMulti, func(code int32, d *decoder) error {
		if d.left() > 0 {
			out = decodeMulti(d, len(ops))
		}
		if code != 0 {
			return codeError(code)
		}
		if d.err != nil {
			return d.err
		}
		for _, r := range out { // the transaction failed: the first op's error says why
			if r.Error != nil {
				return r.Error
			}
		}
		return nil
	})
	settled, err := c.send(ctx, r, nil, e.b)
	if !settled {
		return nil, err // the caller left: out may still be written by the reader
	}
	r.release()
	return out, err
}

// AddAuth sends credentials, waits for the server's answer, and keeps them
// to send again ahead of every request on each later connection.
func (c *Conn) AddAuth(ctx context.Context, scheme string, auth []byte) error {
	cr := cred{scheme: scheme, auth: append([]byte{}, auth...)}
	r := newRequest(opAuth, nil)
	r.cred = &cr // kept by the reader once the server accepts it
	c.mu.Lock()
	switch {
	case c.closing:
		c.mu.Unlock()
		return ErrClosing
	case c.link == nil:
		c.mu.Unlock()
		return ErrConnectionClosed
	}
	l := c.link
	l.queueFrameLocked(r, authPacket(cr))
	l.flushLocked(ctx.Done() == nil)
	c.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// authPacket encodes an AuthPacket (its xid is set when queued).
func authPacket(cr cred) []byte {
	e := encoder{b: make([]byte, 12, 64)}
	putOp(e.b, opAuth)
	e.int32(0)
	e.string(cr.scheme)
	e.buffer(cr.auth)
	putLength(e.b)
	return e.b
}

// GetACL returns a node's ACL and stat.
func (c *Conn) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	var acl []zk.ACL
	var st *zk.Stat
	_, err := c.request(ctx, opGetACL, func(e *encoder) { encodePath(e, path) },
		func(code int32, d *decoder) error {
			if code != 0 {
				return codeError(code)
			}
			acl, st = d.acls(), d.stat()
			return d.err
		})
	if err != nil {
		return nil, nil, err
	}
	return acl, st, nil
}

// AddWatch sets a persistent watch (mode AddWatchPersistent or
// AddWatchPersistentRecursive) on path, ZooKeeper 3.6+: it stays until
// RemoveWatches or the session ends, and the Conn sets it again on every
// new connection of the session (SetWatches2). Its events reach the Event
// callback only. A server without addWatch answers ErrUnimplemented.
//
// When ctx ends before the reply, the watch the server may set is not kept
// here (nor set again on a new connection): the server drops it with the
// connection, or the session.
func (c *Conn) AddWatch(ctx context.Context, path string, mode int32) error {
	r := newRequest(opAddWatch, nil)
	r.decode = func(code int32, d *decoder) error {
		if code != 0 {
			return codeError(code)
		}
		if r.claim.CompareAndSwap(claimOpen, claimKept) { // the caller learns of it
			c.watches.mu.Lock()
			c.watches.persistent[path] = mode
			c.watches.mu.Unlock()
		}
		return nil
	}
	settled, err := c.send(ctx, r, func(e *encoder) { e.string(path); e.int32(mode) }, nil)
	if settled {
		r.release()
	}
	return err
}

// Watcher types of removeWatches.
const (
	watcherAny                 int32 = 3
	watcherPersistent          int32 = 4
	watcherPersistentRecursive int32 = 5
)

// RemovePersistentWatch removes the persistent watch AddWatch set on path,
// on the server and here. A watch the server no longer holds (its session
// ended) is no error.
func (c *Conn) RemovePersistentWatch(ctx context.Context, path string) error {
	c.watches.mu.Lock()
	mode, ok := c.watches.persistent[path]
	c.watches.mu.Unlock()
	if !ok {
		return nil
	}
	typ := watcherPersistent
	if mode == AddWatchPersistentRecursive {
		typ = watcherPersistentRecursive
	}
	err := c.removeWatches(ctx, path, typ)
	if errors.Is(err, errMarshalling) {
		// Before ZooKeeper 3.9 the server knows no persistent watcher
		// type: Any removes the persistent watch too (and the path's
		// one-shot watches, which end with a watch-removed event).
		err = c.removeWatches(ctx, path, watcherAny)
	}
	return err
}

// errMarshalling is the server's MarshallingError: a request it could not read.
var errMarshalling = CodeError(-5)

func (c *Conn) removeWatches(ctx context.Context, path string, typ int32) error {
	_, err := c.request(ctx, opRemoveWatches, func(e *encoder) { e.string(path); e.int32(typ) },
		func(code int32, d *decoder) error {
			if code != 0 && code != codeNoWatcher {
				return codeError(code)
			}
			c.watches.mu.Lock()
			delete(c.watches.persistent, path)
			c.watches.mu.Unlock()
			if typ == watcherAny {
				// The server dropped the path's one-shot watches too, and
				// tells nothing of it (the Java client ends them itself).
				c.watches.end(path, zk.Event{Type: zk.EventNotWatching, State: zk.StateSyncConnected, Path: path, Err: ErrNoWatcher})
			}
			return nil
		})
	return err
}

// GetEphemerals lists the session's ephemeral nodes whose paths start with
// prefix ("/" for all), ZooKeeper 3.6+.
func (c *Conn) GetEphemerals(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	_, err := c.request(ctx, opGetEphemerals, func(e *encoder) { e.string(prefix) }, readInto(&out, (*decoder).strings))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetAllChildrenNumber counts every node under path (not path itself),
// ZooKeeper 3.6+.
func (c *Conn) GetAllChildrenNumber(ctx context.Context, path string) (int, error) {
	var n int32
	_, err := c.request(ctx, opGetAllChildrenNumber, func(e *encoder) { e.string(path) }, readInto(&n, (*decoder).int32))
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// ClientInfo is one identity the server knows the session by (WhoAmI).
type ClientInfo struct {
	// AuthScheme is the scheme ("ip", "digest", "x509", ...).
	AuthScheme string
	// User is the identity in that scheme.
	User string
}

// WhoAmI returns the identities the server has authenticated the session
// as, ZooKeeper 3.7+.
func (c *Conn) WhoAmI(ctx context.Context) ([]ClientInfo, error) {
	var out []ClientInfo
	_, err := c.request(ctx, opWhoAmI, nil, func(code int32, d *decoder) error {
		if code != 0 {
			return codeError(code)
		}
		n := d.count(8)
		out = make([]ClientInfo, 0, n)
		for range n {
			out = append(out, ClientInfo{AuthScheme: d.string(), User: d.string()})
		}
		return d.err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
