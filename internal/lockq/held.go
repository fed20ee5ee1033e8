package lockq

import (
	"context"
	"errors"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// Held is a node that holds. Its Lost channel closes when holding can no
// longer be guaranteed: the connection was suspended (unless the request
// asked for LostOnSessionLossOnly), the session was lost, the node was
// deleted under us, the client closed, or the holder released.
type Held struct {
	rep   report    // what the hooks are told when it ends
	since time.Time // when it began to hold

	c    *client.Client
	node client.ProtectedNode
	name string

	known    chan struct{} // closed once token is set (or never will be: lost)
	token    int64
	want     chan struct{} // closed by the first Token: read the node now
	wantOnce sync.Once

	lost     chan struct{}
	lostOnce sync.Once
	cause    error           // zkrecipes.ErrLost or zkrecipes.ErrNotHeld (released); set before lost closes
	disc     <-chan struct{} // the connection's Disconnected the monitor watches (nil: not watched)

	afterMu   sync.Mutex
	after     []*func() // AfterLost's functions not yet run or stopped
	afterDone bool      // lost has closed: AfterLost runs f at once

	released chan struct{} // closed by stop: it also ends the monitor's I/O (see releasedCtx)
	relOnce  sync.Once
	done     chan struct{} // closed when the monitor has returned (or was never needed)

	// The monitor starts lazily (see startMonitor): until then the client
	// tells of a loss (loss) and a timer of readDelay's end.
	mstate   atomic.Int32 // monitorIdle, monitorRunning or monitorSkipped
	loss     access.LossWatch
	timer    *time.Timer
	onRevoke func()
}

// A Held's monitor, as mstate says.
const (
	monitorIdle    int32 = iota // not started: loss and timer stand in for it
	monitorRunning              // started: it closes done when it returns
	monitorSkipped              // released before it was needed: stop closed done
)

// hold turns the waiter into a holder and starts its monitor. disc is the
// Disconnected channel taken before the listing or event that granted it.
func (w *waiter) hold(disc <-chan struct{}) *Held {
	if w.req.LostOnSessionLossOnly {
		disc = nil // a nil channel never fires in a select
	}
	return newHeld(w.q.c, w.node, w.token, disc, w.req.OnRevoke, report{w.req.Recipe, w.q.dir})
}

// Hold starts holding node, a node some other recipe decided holds (a
// semaphore's lease): its token is read and its Lost watched exactly as a
// lock holder's. disc is the client's Disconnected channel taken before the
// listing that granted it, or nil for Lost on session loss only. recipe
// and dir name it to the client's hooks (client.Hooks.Released; "" for no
// report).
func Hold(c *client.Client, node client.ProtectedNode, disc <-chan struct{}, recipe, dir string) *Held {
	return newHeld(c, node, 0, disc, nil, report{recipe, dir})
}

// report names a holding to the client's hooks: its recipe (one of the
// client.Recipe constants; "" reports nothing) and its recipe's path.
type report struct{ recipe, dir string }

// newHeld starts holding node. Its monitor (a goroutine) starts only when
// it has work: after readDelay, or when Token asks for the token, or when
// the client tells that the connection or the session is gone (a loss
// watch, told on the goroutine that closes disc or ends the session, so
// Lost closes as promptly as a monitor waiting on them would close it). A
// holding released before any of these costs no goroutine and no read.
func newHeld(c *client.Client, node client.ProtectedNode, token int64, disc <-chan struct{}, onRevoke func(), rep report) *Held {
	h := &Held{
		rep:      rep,
		since:    time.Now(),
		c:        c,
		node:     node,
		name:     path.Base(node.Path),
		token:    token,
		known:    make(chan struct{}),
		want:     make(chan struct{}),
		lost:     make(chan struct{}),
		disc:     disc,
		released: make(chan struct{}),
		done:     make(chan struct{}),
		onRevoke: onRevoke,
	}
	if token != 0 {
		close(h.known)
	}
	access.Held(c, rep.recipe, rep.dir, h.since) // end reports its end
	h.loss = access.LossWatch{Disc: disc, Sess: node.Session, F: startMonitor, Arg: h}
	if !access.WatchLoss(c, &h.loss) {
		h.startMonitor() // gone already: the monitor says so at once
		return h
	}
	h.timer = time.AfterFunc(readDelay, h.startMonitor)
	return h
}

// startMonitor is a loss watch's function: arg is the *Held.
func startMonitor(arg any) { arg.(*Held).startMonitor() }

// startMonitor starts the monitor goroutine, unless it runs already or the
// holding was released first.
func (h *Held) startMonitor() {
	if h.mstate.CompareAndSwap(monitorIdle, monitorRunning) {
		go h.monitor(releasedCtx{h}, h.onRevoke)
	}
}

// releasedCtx is the context of the monitor's reads: done once the holding
// is released.
type releasedCtx struct{ h *Held }

func (releasedCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c releasedCtx) Done() <-chan struct{}     { return c.h.released }
func (releasedCtx) Value(any) any               { return nil }
func (c releasedCtx) Err() error {
	if IsClosed(c.h.released) {
		return context.Canceled
	}
	return nil
}

// Path is the held node's path (relative to the client's namespace).
func (h *Held) Path() string { return h.node.Path }

// Name is the held node's name.
func (h *Held) Name() string { return h.name }

// Token is the holding's fencing token: the zxid that created its node (or,
// for a downgraded read holding, its write holding's node). It grows
// strictly across successive holders of a directory, even across the
// deletion and re-creation of the directory, since zxids never repeat.
//
// ZooKeeper's create does not return it: the holder's monitor reads it with
// the watch it sets on its own node (see readDelay), off the acquire path,
// and Token asks for that read at once and waits for it: at most one round
// trip, paid by whoever asks. zkrecipes.ErrLost if the holding was lost before
// the node could be read, ctx's error if ctx ended first; never 0 with a
// nil error.
func (h *Held) Token(ctx context.Context) (int64, error) {
	select {
	case <-h.known:
		return h.token, nil
	default:
	}
	h.wantOnce.Do(func() { close(h.want) })
	h.startMonitor()
	select {
	case <-h.known:
		return h.token, nil
	case <-h.lost:
		select {
		case <-h.known:
			return h.token, nil
		default:
			return 0, zkrecipes.ErrLost
		}
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// readDelay is how long a new holder's monitor waits before it reads its
// own node (to learn the token, check that the node
// belongs to its session, and leave the watch that reports the node's
// deletion or revocation), unless Token asks sooner. A holding released
// within it never pays for the read, which would otherwise sit in front of
// the release's delete and cost a short critical section about a tenth of
// its cycle. Suspension and session loss are watched from the first
// instant regardless; a deletion meanwhile is found by the read itself.
const readDelay = 2 * time.Millisecond

// Session is the session the held node belongs to.
func (h *Held) Session() *client.Session { return h.node.Session }

// Lost is closed once holding can no longer be guaranteed.
func (h *Held) Lost() <-chan struct{} { return h.lost }

// Cause is why Lost closed: zkrecipes.ErrNotHeld after a release, else zkrecipes.ErrLost; nil
// while Lost is open.
func (h *Held) Cause() error {
	select {
	case <-h.lost:
		return h.cause
	default:
		return nil
	}
}

// markLost closes Lost with cause, unless it is closed already; it reports
// whether this call closed it.
func (h *Held) markLost(cause error) bool {
	closed := false
	h.lostOnce.Do(func() {
		closed = true
		h.cause = cause
		close(h.lost)
		h.afterMu.Lock()
		fs := h.after
		h.after, h.afterDone = nil, true
		h.afterMu.Unlock()
		for _, f := range fs {
			(*f)()
		}
	})
	return closed
}

// lose closes Lost with zkrecipes.ErrLost (and logs why), unless it is closed already.
func (h *Held) lose(why string) {
	if h.markLost(zkrecipes.ErrLost) {
		access.Logger(h.c).Debug("holding lost", "node", h.node.Path, "why", why)
	}
}

// Live reports whether the holding still holds: it was not released, Lost
// is open, the node's session has not ended (the client's Close ends it),
// and, unless Lost waits for session loss only, the connection has not
// been suspended since the grant.
//
// The monitor closes Lost on its own goroutine, some time after the session
// ended or the suspension began: a caller that asked Lost alone could, in
// between, act on a holding already gone (a reentrant Lock succeeding after
// the client's Close returned). Live does not wait for the monitor: if
// either has happened, it closes Lost itself (cause zkrecipes.ErrLost; AfterLost's
// functions run on its caller's goroutine) and reports false.
func (h *Held) Live() bool {
	switch {
	case IsClosed(h.lost), IsClosed(h.released):
		return false
	case IsClosed(h.node.Session.Done()):
		h.lose("session ended")
		return false
	case h.disc != nil && IsClosed(h.disc):
		h.lose("connection suspended")
		return false
	}
	return true
}

// AfterLost arranges for f to be called once Lost closes, on the goroutine
// that closes it (at once, on the caller's, if it is closed already): f
// must be quick and must not wait. stop undoes it; it reports whether it
// stopped f from being called. It saves a goroutine that would only wait
// for Lost.
func (h *Held) AfterLost(f func()) (stop func() bool) {
	h.afterMu.Lock()
	if h.afterDone {
		h.afterMu.Unlock()
		f()
		return func() bool { return false }
	}
	pf := &f
	h.after = append(h.after, pf)
	h.afterMu.Unlock()
	return func() bool {
		h.afterMu.Lock()
		defer h.afterMu.Unlock()
		for i, g := range h.after {
			if g == pf {
				h.after = append(h.after[:i], h.after[i+1:]...)
				return true
			}
		}
		return false
	}
}

// monitor watches the held node (deleted, or revoked through its data), the
// session and, unless h.disc is nil, the connection, and closes Lost. Re-reads
// of the node run beside the loop, so a suspension is noticed at once even
// while a read is being retried.
func (h *Held) monitor(ctx context.Context, onRevoke func()) {
	why := ""
	defer func() { h.end(why) }()
	// It watches the connection and the session itself from here on. (The
	// timer may still fire: startMonitor then does nothing.)
	access.UnwatchLoss(h.c, &h.loss)
	sess, disc := h.node.Session, h.disc
	var own <-chan zk.Event
	var reading <-chan readResult
	// The first read starts once readDelay is over or Token asks; a
	// monitor started earlier, for a loss, sees the loss at once.
	var start <-chan time.Time
	want := h.want
	if wait := readDelay - time.Since(h.since); wait > 0 && !IsClosed(want) {
		t := time.NewTimer(wait)
		defer t.Stop()
		start = t.C
	} else {
		want, reading = nil, h.read(ctx)
	}
	for {
		select {
		case <-start:
			start, want, reading = nil, nil, h.read(ctx)
		case <-want:
			start, want, reading = nil, nil, h.read(ctx)
		case <-h.released:
			return
		case <-sess.Done():
			why = "session ended"
			return
		case <-disc:
			why = "connection suspended"
			return
		case ev := <-own:
			if ev.Type != zk.EventNodeDataChanged {
				why = "node event " + ev.Type.String()
				return // deleted, or the watch ended with its session
			}
			own, reading = nil, h.read(ctx)
		case r := <-reading:
			reading = nil
			if r.err != nil {
				if errors.Is(r.err, context.Canceled) {
					return // released meanwhile
				}
				why = "watching the node failed: " + r.err.Error()
				return // deleted under us, or no way to know: lost
			}
			if r.owner != sess.ID() {
				why = "the node belongs to another session"
				return // not the session we watch: never vouch for it
			}
			if h.token == 0 {
				h.token = r.czxid
				close(h.known)
			}
			own = r.ch
			if string(r.data) == RevokeMarker && onRevoke != nil {
				go onRevoke()
			}
		}
	}
}

// end is the end of a holding's watch, once: Lost closes (zkrecipes.ErrLost
// and why, unless why is "" after a release: zkrecipes.ErrNotHeld), the hooks
// learn of it, and done closes.
func (h *Held) end(why string) {
	if why != "" {
		h.lose(why)
	} else {
		h.markLost(zkrecipes.ErrNotHeld)
	}
	// Live may have closed Lost first (zkrecipes.ErrLost), and a release may
	// then have ended the loop before it saw why: Cause says.
	lost := h.cause == zkrecipes.ErrLost
	access.Released(h.c, h.rep.recipe, h.rep.dir, h.since, lost) // once Lost is closed
	close(h.done)
}

type readResult struct {
	data         []byte
	czxid, owner int64
	ch           <-chan zk.Event
	err          error
}

// read re-reads the held node and leaves a data watch on it, on its own
// goroutine (which ends with the read: ctx is cancelled on release).
func (h *Held) read(ctx context.Context) <-chan readResult {
	out := make(chan readResult, 1)
	go func() {
		data, st, ch, err := h.c.GetW(ctx, h.node.Path)
		r := readResult{data: data, ch: ch, err: err}
		if st != nil {
			r.czxid, r.owner = st.Czxid, st.EphemeralOwner
		}
		out <- r
	}()
	return out
}

// Release closes Lost and deletes the held node with a guaranteed delete: if
// the delete cannot finish within ctx, the error wraps
// zkrecipes.ErrDeletePending and the client keeps deleting it in the
// background for as long as the node's session lives.
func (h *Held) Release(ctx context.Context) error {
	h.stop()
	err := h.c.DeleteGuaranteed(ctx, h.node.Path, h.node.Session)
	<-h.done // the delete went out first: the next holder need not wait for this
	return err
}

// Participant is one contender in a queue directory.
type Participant struct {
	// Name is the node's name; Path its path.
	Name, Path string
	// Marker is its lock name ("lock-", "__READ__", ...).
	Marker string
	// Data is the node's data (Curator writes the holder's address).
	Data []byte
	// Czxid is the node's creation zxid: the fencing token it holds with.
	Czxid int64
}

// Participants lists the contenders in queue order, holder(s) first. Nodes
// that vanish while being read are left out; when every node of a listing
// has vanished by the time it is read (the lock passed on while the reads
// were delayed), it lists again, for as long as ctx lasts: none is
// reported only when a listing had none.
func (q *Queue) Participants(ctx context.Context) ([]Participant, error) {
	for {
		kids, _, err := q.c.Children(ctx, q.dir)
		if errors.Is(err, zk.ErrNoNode) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		nodes := Sorted(kids, q.markers)
		var out []Participant
		for _, n := range nodes {
			p := path.Join(q.dir, n.Name)
			data, st, err := q.c.Get(ctx, p)
			if errors.Is(err, zk.ErrNoNode) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out = append(out, Participant{Name: n.Name, Path: p, Marker: n.Marker, Data: data, Czxid: st.Czxid})
		}
		if len(out) > 0 || len(nodes) == 0 {
			return out, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// Revoke asks the holder of the node at nodePath to release, by writing
// RevokeMarker into it (Curator's revocation protocol).
func Revoke(ctx context.Context, c *client.Client, nodePath string) error {
	_, err := c.Set(ctx, nodePath, []byte(RevokeMarker), -1)
	return err
}
