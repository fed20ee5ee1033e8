package cache

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// The loop: one goroutine owns the tree. Notifications and the client's
// states come in on their streams; reads go out in batches (the persistent
// mode's, with no goroutine: see pump) or each on a goroutine of its own
// (the per-node mode's, which set watches), and report back. Every change
// of the view is made here, under Cache.mu, and published in the same
// critical section.
//
// Why the view never goes back in time: a node's data changes only by the
// reply to a read of it, and a node's children only by the reply to a
// listing of it; at most one read and one listing of a node are in flight at
// once (a notification that comes meanwhile asks for another after it), so
// the replies about one node are applied in the order the server answered
// them. A name a stale listing brings back is only a placeholder until its
// own read finds it, so it is never announced if it is gone. Every read and
// listing sets a watch, so every change after it brings a notification, on
// the same connection and ahead of any reply that shows the change.
//
// The loop takes notifications and replies from two channels, so it may
// apply a reply before a notification the server sent ahead of it: a
// notification is only ever a reason to read again, never a change applied
// as it stands. (A deletion applied from its notification once took a node
// that had been made again out of the view for good:
// TestCacheRecreateWhileListing.) Reading again is idempotent: a read that
// shows what the view has changes nothing.
//
// Why nothing is missed: within a session the client sets every watch
// again after a reconnect, and the server then fires those whose node
// changed meanwhile, so changes made while disconnected arrive as
// notifications (the per-node mode; the persistent mode, whose watch the
// server does not replay, reads every node again: see persist.go). A read
// that failed is retried (at once when the connection is back). When the
// session is lost its watches are gone: every known node is read (and
// listed) again, and only the differences become events.

type jobKind uint8

const (
	readNode jobKind = iota
	listKids
)

// job is one read or listing of one entry, in one epoch (a session as the
// loop saw it: replies of an earlier epoch are dropped).
type job struct {
	e     *entry
	kind  jobKind
	epoch uint64
}

// reply is what a job found.
type reply struct {
	job
	exists bool
	data   []byte
	stat   zk.Stat
	kids   []string
	err    error
	watch  *client.Watch // the per-node mode's watch the read set, if any
}

// inbox takes the replies of the persistent mode's reads, which come on
// the client's reader goroutine (see access.Reads), to the loop: the loop
// takes what has come, all at once.
type inbox struct {
	mu    sync.Mutex
	items []reply
	wake  chan struct{} // something came (capacity 1)
}

func (b *inbox) push(r reply) {
	b.mu.Lock()
	b.items = append(b.items, r)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take returns what came, leaving spare (emptied) to fill.
func (b *inbox) take(spare []reply) []reply {
	b.mu.Lock()
	defer b.mu.Unlock()
	items := b.items
	b.items = spare[:0]
	return items
}

// Retry pacing of reads that failed while connected (an ACL, a server
// error): from retryMin, doubling to retryMax.
const (
	retryMin = 200 * time.Millisecond
	retryMax = 5 * time.Second
)

type loop struct {
	c          *Cache
	events     <-chan zk.Event // per-node mode's notifications (nil in the persistent mode)
	stopEvents func()
	states     <-chan client.StateChange

	// The persistent mode's watch (see persist.go), nil in the per-node mode.
	watch       *client.PersistentWatch
	watchEvents <-chan client.WatchEvent

	// session is the session of the last state the loop saw (or the one
	// its persistent watch was set on); pendingResync a new session's
	// resync that came before that session's state (see onWatchEvent).
	session, pendingResync int64

	epoch       uint64
	epochCtx    context.Context
	cancelEpoch context.CancelFunc

	queue    []job                   // jobs waiting for a slot
	inFlight int                     // reads in flight
	goFlight int                     // of those, the ones on goroutines of their own
	replies  chan reply              // the per-node mode's reads, each on a goroutine (made on first use)
	watches  map[string]*nodeWatches // the per-node mode's watches, by path

	// The persistent mode's reads go out in batches with no goroutine
	// (access.Reads); their replies come through inbox.
	inbox   inbox
	batch   []access.Read
	spare   []reply
	onRead  func(*access.Reply) // l.received, made once
	pathBuf []byte              // applyKids' scratch

	retry      []job // failed jobs, tried again on reconnect or by the timer
	retryTimer *time.Timer
	retryWait  time.Duration

	rebuild     bool // the session was lost: read everything again once connected
	initialized bool
}

func newLoop(c *Cache, events <-chan zk.Event, stopEvents func(), states <-chan client.StateChange) *loop {
	l := &loop{
		c:          c,
		events:     events,
		stopEvents: stopEvents,
		states:     states,
		retryWait:  retryMin,
	}
	l.inbox.wake = make(chan struct{}, 1)
	l.onRead = l.received
	l.newEpoch()
	return l
}

func (l *loop) newEpoch() {
	if l.cancelEpoch != nil {
		l.cancelEpoch()
	}
	l.epoch++
	l.epochCtx, l.cancelEpoch = context.WithCancel(l.c.stopCtx)
}

func (l *loop) run() {
	if !l.setupWatch() {
		return
	}
	if sess := l.c.cl.Session(); sess != nil {
		l.session = sess.ID()
	}
	defer l.removeWatch()
	defer l.stopWatches()
	defer l.drain()
	l.schedule(l.c.root, readNode)
	for {
		l.pump()
		l.checkInitialized()
		var retryC <-chan time.Time
		if l.retryTimer != nil {
			retryC = l.retryTimer.C
		}
		select {
		case <-l.c.stopCtx.Done():
			return
		case ev, ok := <-l.events:
			if !ok {
				return // the client closed
			}
			l.onNotification(ev)
		case ev, ok := <-l.watchEvents:
			if !ok {
				return // the client closed
			}
			l.onWatchEvent(ev)
		case st, ok := <-l.states:
			if !ok {
				return
			}
			l.onState(st)
		case r := <-l.replies:
			l.inFlight--
			l.goFlight--
			l.onReply(&r)
		case <-l.inbox.wake:
			items := l.inbox.take(l.spare)
			for i := range items {
				l.inFlight--
				l.onReply(&items[i])
			}
			clear(items)
			l.spare = items[:0]
			if l.inFlight == 0 {
				l.spare = nil // the load is over: keep no room for it
			}
		case <-retryC:
			l.retryTimer = nil
			l.retryAll()
		}
	}
}

// drain ends the reads still in flight and waits for the replies of those
// on goroutines of their own. The persistent mode's batched reads are not
// waited for: their late replies go to an inbox no one reads.
func (l *loop) drain() {
	l.cancelEpoch()
	if l.retryTimer != nil {
		l.retryTimer.Stop()
	}
	for ; l.goFlight > 0; l.goFlight-- {
		r := <-l.replies
		r.watch.Stop()
	}
}

// schedule asks for a read or listing of e; if one is already in flight or
// queued, for another after it.
func (l *loop) schedule(e *entry, kind jobKind) {
	if e.gone {
		return
	}
	busy, again := busyFlags(kind)
	if e.has(busy) {
		e.jobs |= again
		return
	}
	e.jobs |= busy
	l.queue = append(l.queue, job{e: e, kind: kind, epoch: l.epoch})
}

// done marks e's job of kind finished and starts the one asked for meanwhile.
func (l *loop) done(e *entry, kind jobKind) {
	busy, again := busyFlags(kind)
	e.jobs &^= busy
	if e.has(again) {
		e.jobs &^= again
		l.schedule(e, kind)
	}
}

// pump starts queued jobs while there are free slots: in the persistent
// mode as one batch of reads (no watch, no goroutine), else each read with
// its watch on a goroutine of its own.
func (l *loop) pump() {
	batch := l.batch[:0]
	for l.inFlight < l.c.opt.maxFlight && len(l.queue) > 0 {
		j := l.queue[0]
		l.queue[0] = job{}
		l.queue = l.queue[1:]
		if len(l.queue) == 0 {
			l.queue = nil
		}
		if j.e.gone {
			j.e.jobs &^= dataBusy | kidsBusy
			continue
		}
		l.inFlight++
		if l.watch != nil {
			batch = append(batch, access.Read{Path: j.e.path, Children: j.kind == listKids, Tag: j.e, Seq: j.epoch})
			continue
		}
		if l.replies == nil {
			l.replies = make(chan reply, l.c.opt.maxFlight)
		}
		l.goFlight++
		ctx := l.epochCtx
		isRoot := j.e == l.c.root
		l.c.wg.Add(1)
		go func() {
			defer l.c.wg.Done()
			l.replies <- l.c.fetch(ctx, j, isRoot)
		}()
	}
	if len(batch) > 0 {
		access.Reads(l.c.cl, batch, l.onRead)
		clear(batch)
	}
	l.batch = batch[:0]
	if len(l.queue) == 0 && l.inFlight == 0 {
		l.batch = nil // the load is over: keep no room for it
	}
}

// received takes a batched read's reply to the loop; it runs on the
// client's reader goroutine (or on the loop's, for a read that could not
// be sent).
func (l *loop) received(rp *access.Reply) {
	r := reply{job: job{e: rp.Tag.(*entry), kind: readNode, epoch: rp.Seq}}
	if rp.Children {
		r.kind = listKids
	}
	switch {
	case rp.Err == nil:
		r.exists, r.data, r.kids, r.stat = true, rp.Data, rp.Kids, rp.Stat
	case !errors.Is(rp.Err, zk.ErrNoNode):
		r.err = rp.Err
	}
	l.inbox.push(r)
}

// checkInitialized publishes Initialized once nothing of the first load is
// left to do.
func (l *loop) checkInitialized() {
	if l.initialized || l.inFlight > 0 || len(l.queue) > 0 || len(l.retry) > 0 || l.rebuild {
		return
	}
	l.initialized = true
	l.c.mu.Lock()
	l.c.publishLocked(Event{Type: Initialized})
	l.c.mu.Unlock()
	close(l.c.initCh)
}

// onNotification turns a watch notification into the read that will show
// what changed.
func (l *loop) onNotification(ev zk.Event) {
	l.c.mu.RLock()
	e := l.c.index[ev.Path]
	l.c.mu.RUnlock()
	l.firedWatches(ev.Path, ev.Type)
	if e == nil {
		return
	}
	switch ev.Type {
	case zk.EventNodeChildrenChanged:
		if e.live {
			l.schedule(e, listKids)
		}
	default: // created, deleted, data changed
		// A deletion too is only a reason to read: the notification may
		// be older than a reply already applied (see the top of this
		// file), which may show the node made again; the read shows what
		// is there now.
		l.schedule(e, readNode)
	}
}

// onState follows the client: after a session loss every watch is gone, so
// everything is read again once a new session is up; after a reconnect the
// reads that failed meanwhile are tried again.
func (l *loop) onState(st client.StateChange) {
	switch st.State {
	case client.StateLost:
		l.newEpoch()
		l.stopWatches() // the session's watches went with it
		l.queue = nil
		l.retry = nil
		if l.retryTimer != nil {
			l.retryTimer.Stop()
			l.retryTimer = nil
		}
		for _, e := range l.c.index { // the loop's own fields: no lock
			e.jobs = 0
		}
		l.rebuild = true
	case client.StateConnected, client.StateReconnected:
		l.session = st.SessionID
		// The persistent mode rebuilds on the watch's resync event instead,
		// which comes once the watch is set on the new session: reads
		// before it could miss what changes in between.
		if l.rebuild && l.watch == nil {
			l.rebuild = false
			l.readAll()
		}
		if l.pendingResync != 0 && l.pendingResync == st.SessionID {
			// The new session's resync came before its state (they come on
			// two channels): now that the loss is behind, rebuild.
			l.pendingResync = 0
			l.rebuild = false
			l.readAll()
		}
		l.retryAll()
	}
}

// readAll reads and lists every entry again, parents before children.
func (l *loop) readAll() {
	level := []*entry{l.c.root}
	for len(level) > 0 {
		var next []*entry
		for _, e := range level {
			l.schedule(e, readNode)
			// The persistent mode lists only the nodes whose read shows
			// their children changed (see applyNode); the per-node mode
			// lists every one, to set its child watch again.
			if e.live && l.canList(e) && l.watch == nil {
				l.schedule(e, listKids)
			}
			next = append(next, e.children()...)
		}
		level = next
	}
}

func (l *loop) retryAll() {
	jobs := l.retry
	l.retry = nil
	for _, j := range jobs {
		l.schedule(j.e, j.kind)
	}
}

// failed keeps a job that failed in the current epoch for another try.
func (l *loop) failed(j job, err error) {
	l.c.log.Debug("zkrecipes: cache read failed; retrying", "path", j.e.path, "error", err)
	l.retry = append(l.retry, j)
	if l.retryTimer == nil {
		l.retryTimer = time.NewTimer(l.retryWait)
		l.retryWait = min(2*l.retryWait, retryMax)
	}
}

// canList reports whether e's children are cached.
func (l *loop) canList(e *entry) bool {
	return l.c.opt.maxDepth == noLimit || depthBelow(l.c.path, e.path) < l.c.opt.maxDepth
}
