package election

import (
	"sync"

	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// CloseMode says whether a Latch's Close tells its listeners (WithListener)
// that the term it ends is over: Curator's LeaderLatch.CloseMode. Whatever
// the mode, Close cancels the term's context first (cause zkrecipes.ErrClosed) and
// closes Terms: the mode changes only the listener's NotLeader call.
type CloseMode int

const (
	// CloseSilent (the default, as in Curator) makes no NotLeader call for
	// the term Close ends: whoever closes the latch knows.
	CloseSilent CloseMode = iota
	// CloseNotifyLeader calls NotLeader for the term Close ends, as for a
	// term ended any other way (Curator's NOTIFY_LEADER).
	CloseNotifyLeader
)

// WithCloseMode sets the latch's CloseMode (default CloseSilent). Run
// ignores it: a Run's lead function sees its context cancelled either way.
func WithCloseMode(m CloseMode) Option {
	return func(o *options) error {
		if m != CloseSilent && m != CloseNotifyLeader {
			return errs.Invalid("unknown close mode")
		}
		o.closeMode = m
		return nil
	}
}

// WithListener adds a listener to a Latch (Curator's LeaderLatchListener):
// isLeader is called with each term as it starts, notLeader with each term
// once it has ended (its context is cancelled before the call), except the
// term a Close ends under CloseSilent. Either function may be nil, not
// both. Run ignores it: its lead function is its listener.
//
// The calls are made one at a time, in order (a term's isLeader before its
// notLeader, and terms in the order they started), on a goroutine of the
// latch's own: a listener may call the latch's methods, Close included,
// and a slow one delays only the calls after it, never the campaign. So
// by the time isLeader runs, its term may have ended already: a listener is
// for bookkeeping; the term's context, cancelled the moment leadership may
// be gone, is what keeps a leader's work safe. Close does not wait for
// calls still queued: they are made after it returns.
func WithListener(isLeader, notLeader func(t *Term)) Option {
	return func(o *options) error {
		if isLeader == nil && notLeader == nil {
			return errs.Invalid("listener with neither function")
		}
		o.listeners = append(o.listeners, listener{isLeader, notLeader})
		return nil
	}
}

type listener struct{ isLeader, notLeader func(*Term) }

// note is one call to make: isLeader (leading) or notLeader.
type note struct {
	t       *Term
	leading bool
}

// notifier makes a latch's listener calls on a goroutine of its own, in
// the order they were posted. The zero notifier (no listeners) does
// nothing.
type notifier struct {
	ls []listener

	mu      sync.Mutex
	queue   []note
	running bool
	last    bool          // nothing more will be posted
	wake    chan struct{} // one slot: something was posted, or last set
}

func newNotifier(ls []listener) *notifier {
	return &notifier{ls: ls, wake: make(chan struct{}, 1)}
}

// start starts the goroutine that makes the calls (once; not after finish).
func (n *notifier) start() {
	if len(n.ls) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.running || n.last {
		return
	}
	n.running = true
	go n.run()
}

// post queues a call.
func (n *notifier) post(t *Term, leading bool) {
	if len(n.ls) == 0 {
		return
	}
	n.mu.Lock()
	n.queue = append(n.queue, note{t, leading})
	n.mu.Unlock()
	n.signal()
}

// finish says nothing more will be posted: the goroutine makes the calls
// queued and returns.
func (n *notifier) finish() {
	n.mu.Lock()
	n.last = true
	n.mu.Unlock()
	n.signal()
}

func (n *notifier) signal() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *notifier) run() {
	for {
		n.mu.Lock()
		q, last := n.queue, n.last
		n.queue = nil
		n.mu.Unlock()
		for _, e := range q {
			for _, l := range n.ls {
				switch {
				case e.leading && l.isLeader != nil:
					l.isLeader(e.t)
				case !e.leading && l.notLeader != nil:
					l.notLeader(e.t)
				}
			}
		}
		if len(q) > 0 {
			continue
		}
		if last {
			return
		}
		<-n.wake
	}
}
