package cache

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// The loop: one goroutine owns the tree. Notifications and the client's
// states come in on their streams; reads run on goroutines of their own and
// report back on results. Every change of the view is made here, under
// Cache.mu, and published in the same critical section.
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
// Why nothing is missed: within a session go-zookeeper sets every watch
// again after a reconnect, and the server then fires those whose node
// changed meanwhile, so changes made while disconnected arrive as
// notifications. A read that failed is retried (at once when the connection
// is back). When the session is lost its watches are gone: every known node
// is read and listed again, and only the differences become events.

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

	epoch       uint64
	epochCtx    context.Context
	cancelEpoch context.CancelFunc

	queue    []job // jobs waiting for a slot
	inFlight int
	replies  chan reply

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
		replies:    make(chan reply, c.opt.maxFlight),
		retryWait:  retryMin,
	}
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
	defer l.removeWatch()
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
			l.onState(st.State)
		case r := <-l.replies:
			l.inFlight--
			l.onReply(r)
		case <-retryC:
			l.retryTimer = nil
			l.retryAll()
		}
	}
}

// drain ends the reads still in flight and waits for their replies.
func (l *loop) drain() {
	l.cancelEpoch()
	if l.retryTimer != nil {
		l.retryTimer.Stop()
	}
	for ; l.inFlight > 0; l.inFlight-- {
		<-l.replies
	}
}

// schedule asks for a read or listing of e; if one is already in flight or
// queued, for another after it.
func (l *loop) schedule(e *entry, kind jobKind) {
	if e.gone {
		return
	}
	busy, again := &e.dataBusy, &e.dataAgain
	if kind == listKids {
		busy, again = &e.kidsBusy, &e.kidsAgain
	}
	if *busy {
		*again = true
		return
	}
	*busy = true
	l.queue = append(l.queue, job{e: e, kind: kind, epoch: l.epoch})
}

// done marks e's job of kind finished and starts the one asked for meanwhile.
func (l *loop) done(e *entry, kind jobKind) {
	busy, again := &e.dataBusy, &e.dataAgain
	if kind == listKids {
		busy, again = &e.kidsBusy, &e.kidsAgain
	}
	*busy = false
	if *again {
		*again = false
		l.schedule(e, kind)
	}
}

// pump starts queued jobs while there are free slots.
func (l *loop) pump() {
	for l.inFlight < l.c.opt.maxFlight && len(l.queue) > 0 {
		j := l.queue[0]
		l.queue[0] = job{}
		l.queue = l.queue[1:]
		if len(l.queue) == 0 {
			l.queue = nil
		}
		if j.e.gone {
			j.e.dataBusy, j.e.kidsBusy = false, false
			continue
		}
		l.inFlight++
		ctx := l.epochCtx
		isRoot := j.e == l.c.root
		watch := l.watch == nil
		l.c.wg.Add(1)
		go func() {
			defer l.c.wg.Done()
			l.replies <- l.c.fetch(ctx, j, isRoot, watch)
		}()
	}
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
func (l *loop) onState(s client.State) {
	switch s {
	case client.StateLost:
		l.newEpoch()
		l.queue = nil
		l.retry = nil
		if l.retryTimer != nil {
			l.retryTimer.Stop()
			l.retryTimer = nil
		}
		l.c.mu.RLock()
		for _, e := range l.c.index {
			e.dataBusy, e.dataAgain, e.kidsBusy, e.kidsAgain = false, false, false, false
		}
		l.c.mu.RUnlock()
		l.rebuild = true
	case client.StateConnected, client.StateReconnected:
		// The persistent mode rebuilds on the watch's resync event instead,
		// which comes once the watch is set on the new session: reads
		// before it could miss what changes in between.
		if l.rebuild && l.watch == nil {
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
			for _, k := range e.kids {
				next = append(next, k)
			}
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
func (l *loop) failed(r reply) {
	l.c.log.Debug("zkrecipes: cache read failed; retrying", "path", r.e.path, "error", r.err)
	l.retry = append(l.retry, r.job)
	if l.retryTimer == nil {
		l.retryTimer = time.NewTimer(l.retryWait)
		l.retryWait = min(2*l.retryWait, retryMax)
	}
}

// canList reports whether e's children are cached.
func (l *loop) canList(e *entry) bool { return int(e.depth) < l.c.opt.maxDepth }
