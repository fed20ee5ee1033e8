package wire

import (
	"sync"

	"github.com/go-zookeeper/zk"
)

// watchKind is what a one-shot watch waits for, as go-zookeeper names them.
type watchKind uint8

const (
	watchData watchKind = iota
	watchExist
	watchChild
)

type watchKey struct {
	path string
	kind watchKind
}

// watchTable holds the session's one-shot watches (each a channel that gets
// one event and is closed) and its persistent ones (set by AddWatch: they
// stay until removed or the session ends).
type watchTable struct {
	mu         sync.Mutex
	oneShot    map[watchKey][]chan zk.Event
	persistent map[string]int32 // path -> AddWatch mode

	// What decides whether a given-up watch may be removed from the
	// server (see StopWatch): the watching requests in flight, and the
	// server watches that may stand with no channel left for them, each
	// by path and the server's watcher type (data or children).
	pending map[serverWatch]int
	orphans map[serverWatch]struct{}
}

// serverWatch names the server's watches of one type on one path: the
// server keeps one data watch (getData and exists alike) and one child
// watch per path and connection, whatever the number of requests that set
// them.
type serverWatch struct {
	path string
	typ  int32 // watcherData or watcherChildren
}

// server is the server's watcher type that holds a one-shot watch of kind k.
func (k watchKind) server() int32 {
	if k == watchChild {
		return watcherChildren
	}
	return watcherData
}

func (t *watchTable) init() {
	t.oneShot = make(map[watchKey][]chan zk.Event)
	t.persistent = make(map[string]int32)
	t.pending = make(map[serverWatch]int)
	t.orphans = make(map[serverWatch]struct{})
}

// addLocked registers a one-shot watch and returns its channel. t.mu must
// be held.
func (t *watchTable) addLocked(path string, kind watchKind) chan zk.Event {
	ch := make(chan zk.Event, 1)
	k := watchKey{path, kind}
	t.oneShot[k] = append(t.oneShot[k], ch)
	return ch
}

// fire delivers a notification to the one-shot watches it ends, as the
// server ends them: created ends exist watches; data changed ends data and
// exist watches; children changed ends child watches; deleted ends all three.
func (t *watchTable) fire(ev zk.Event) {
	var kinds []watchKind
	switch ev.Type {
	case zk.EventNodeCreated:
		kinds = []watchKind{watchExist}
	case zk.EventNodeDataChanged:
		kinds = []watchKind{watchExist, watchData}
	case zk.EventNodeChildrenChanged:
		kinds = []watchKind{watchChild}
	case zk.EventNodeDeleted:
		kinds = []watchKind{watchExist, watchData, watchChild}
	case eventDataWatchRemoved: // removeWatches took them: they will not fire
		kinds = []watchKind{watchExist, watchData}
		ev = zk.Event{Type: zk.EventNotWatching, State: ev.State, Path: ev.Path, Err: ErrNoWatcher}
	case eventChildWatchRemoved:
		kinds = []watchKind{watchChild}
		ev = zk.Event{Type: zk.EventNotWatching, State: ev.State, Path: ev.Path, Err: ErrNoWatcher}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range kinds {
		key := watchKey{ev.Path, k}
		for _, ch := range t.oneShot[key] {
			ch <- ev
			close(ch)
		}
		delete(t.oneShot, key)
	}
}

// end ends every one-shot watch on path with ev.
func (t *watchTable) end(path string, ev zk.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range []watchKind{watchData, watchExist, watchChild} {
		key := watchKey{path, k}
		for _, ch := range t.oneShot[key] {
			ch <- ev
			close(ch)
		}
		delete(t.oneShot, key)
	}
}

// drain removes every watch and returns the one-shot channels (with their
// paths) for the caller to fail.
func (t *watchTable) drain() (paths []string, chans [][]chan zk.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, chs := range t.oneShot {
		paths = append(paths, k.path)
		chans = append(chans, chs)
	}
	for p := range t.persistent {
		paths = append(paths, p)
		chans = append(chans, nil)
	}
	t.oneShot = make(map[watchKey][]chan zk.Event)
	t.persistent = make(map[string]int32)
	return paths, chans
}

// setWatchesBatch bounds one SetWatches request, as the Java client does,
// well below the server's jute.maxbuffer.
const setWatchesBatch = 128 << 10

// setWatchesLocked returns the SetWatches (or SetWatches2) frames that set
// the session's watches again on a new connection, in batches, each with
// relative zxid zxid. The caller holds c.mu.
func (t *watchTable) setWatchesLocked(zxid int64) [][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out [][]byte
	sw := &setWatches{relativeZxid: zxid}
	size := 0
	flush := func() {
		if size == 0 {
			return
		}
		out = append(out, sw.frame())
		sw = &setWatches{relativeZxid: zxid}
		size = 0
	}
	add := func(list *[]string, path string) {
		if size+len(path)+4 > setWatchesBatch {
			flush()
		}
		*list = append(*list, path)
		size += len(path) + 4
	}
	for k, chs := range t.oneShot {
		if len(chs) == 0 {
			continue
		}
		switch k.kind {
		case watchData:
			add(&sw.data, k.path)
		case watchExist:
			add(&sw.exist, k.path)
		case watchChild:
			add(&sw.child, k.path)
		}
	}
	for p, mode := range t.persistent {
		if mode == AddWatchPersistentRecursive {
			add(&sw.recurse, p)
		} else {
			add(&sw.persistent, p)
		}
	}
	flush()
	return out
}

// frame encodes the request (its xid is set when queued).
func (s *setWatches) frame() []byte {
	op := opSetWatches
	if s.v2() {
		op = opSetWatches2
	}
	e := encoder{b: make([]byte, 12, 64)}
	putOp(e.b, op)
	s.encode(&e, s.v2())
	putLength(e.b)
	return e.b
}

func putOp(frame []byte, op int32) {
	frame[8], frame[9], frame[10], frame[11] = byte(op>>24), byte(op>>16), byte(op>>8), byte(op)
}

// notify handles a watch notification, on the reader goroutine: the Event
// callback first, then the one-shot watches it ends.
func (c *Conn) notify(we watcherEvent, zxid int64) {
	ev := zk.Event{Type: zk.EventType(we.typ), State: zk.State(we.state), Path: we.path, Server: c.Server()}
	c.cfg.Event(ev, zxid)
	c.watches.fire(ev)
}

// failWatches ends every watch with a zk.EventNotWatching event carrying err
// (the session expired, or the Conn closed), told to the Event callback too.
func (c *Conn) failWatches(err error) {
	paths, chans := c.watches.drain()
	for i, p := range paths {
		ev := zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: p, Err: err}
		c.cfg.Event(ev, -1)
		for _, ch := range chans[i] {
			ch <- ev
			close(ch)
		}
	}
}
