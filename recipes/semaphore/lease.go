package semaphore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// Lease is one lease held on a semaphore. Release it exactly once; Lost
// tells when it may be gone without a Release. A zero Lease returns an error
// wrapping ErrInvalidArgument from every method that can return one.
type Lease struct {
	c    *client.Client
	node client.ProtectedNode
	data []byte

	known    chan struct{} // closed once token is set
	token    int64
	want     chan struct{} // closed by the first Token: read the node now
	wantOnce sync.Once

	lost     chan struct{}
	lostOnce sync.Once
	cause    error // ErrLost or ErrNotHeld; set before lost closes

	releasing atomic.Bool
	released  chan struct{}
	cancel    context.CancelFunc // ends the monitor's reads
	done      chan struct{}      // closed when the monitor has returned
}

// newLease starts holding node. disc is the client's Disconnected channel
// taken before the listing that granted the lease, or nil when Lost must
// close on session loss only.
func newLease(c *client.Client, node client.ProtectedNode, data []byte, disc <-chan struct{}) *Lease {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Lease{
		c: c, node: node, data: data,
		known: make(chan struct{}), want: make(chan struct{}),
		lost: make(chan struct{}), released: make(chan struct{}),
		cancel: cancel, done: make(chan struct{}),
	}
	go l.monitor(ctx, disc)
	return l
}

func (l *Lease) valid() bool { return l != nil && l.c != nil }

// Node is the lease node's path (relative to the client's namespace); ""
// for a zero Lease.
func (l *Lease) Node() string {
	if !l.valid() {
		return ""
	}
	return l.node.Path
}

// Data is the lease node's data, as written when it was created (a copy).
func (l *Lease) Data() []byte {
	if !l.valid() {
		return nil
	}
	return append([]byte(nil), l.data...)
}

// Lost returns a channel closed once holding the lease can no longer be
// guaranteed: the connection was suspended (unless the semaphore was made
// WithLostOnSessionLossOnly), the session was lost, the lease node was
// deleted or changed owner, the client closed, or the lease was released.
// For a zero Lease it is already closed.
func (l *Lease) Lost() <-chan struct{} {
	if !l.valid() {
		return closedChan
	}
	return l.lost
}

// Token returns the lease's fencing token: its node's creation zxid, never 0
// with a nil error. ErrNotHeld after Release, ErrLost once the lease may be
// gone. The holder's monitor reads the node just after the grant; Token waits
// for that read (at most one round trip).
func (l *Lease) Token(ctx context.Context) (int64, error) {
	if !l.valid() {
		return 0, errZero
	}
	if ctx == nil {
		return 0, invalidArg("nil context")
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := l.gone(); err != nil {
		return 0, err
	}
	l.wantOnce.Do(func() { close(l.want) })
	select {
	case <-l.known:
		if err := l.gone(); err != nil {
			return 0, err
		}
		return l.token, nil
	case <-l.lost:
		return 0, l.gone()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// gone is why the lease cannot be vouched for, or nil.
func (l *Lease) gone() error {
	if l.releasing.Load() {
		return ErrNotHeld
	}
	select {
	case <-l.lost:
		return l.cause
	default:
		return nil
	}
}

// Release gives the lease back: Lost closes and the lease node is deleted
// with a guaranteed delete. If the delete cannot finish within ctx (nil
// means no deadline), the lease is released all the same, the client keeps
// deleting the node in the background for as long as its session lives, and
// the error wraps ErrDeletePending. A second Release returns ErrNotHeld.
func (l *Lease) Release(ctx context.Context) error {
	if !l.valid() {
		return errZero
	}
	if !l.releasing.CompareAndSwap(false, true) {
		return ErrNotHeld
	}
	if ctx == nil {
		ctx = context.Background()
	}
	close(l.released)
	l.cancel()
	err := l.c.DeleteGuaranteed(ctx, l.node.Path, l.node.Session)
	<-l.done
	return err
}

func (l *Lease) markLost(cause error) {
	l.lostOnce.Do(func() {
		l.cause = cause
		close(l.lost)
	})
}

// readDelay is how long a new lease's monitor waits before it reads its own
// node (token, owner check, deletion watch) unless Token asks sooner: a lease
// released within it never has that read in front of its delete.
// Suspension and session loss are watched from the first instant.
const readDelay = 2 * time.Millisecond

// monitor closes Lost when the session ends, the connection is suspended
// (disc, unless nil), or the lease node is deleted or belongs to another
// session; on Release it closes Lost with ErrNotHeld.
func (l *Lease) monitor(ctx context.Context, disc <-chan struct{}) {
	defer close(l.done)
	why := ""
	defer func() {
		if why == "" {
			l.markLost(ErrNotHeld)
			return
		}
		l.markLost(ErrLost)
		l.c.Logger().Info("semaphore lease lost", "node", l.node.Path, "why", why)
	}()
	sess := l.node.Session
	var own <-chan zk.Event
	var reading <-chan readResult
	t := time.NewTimer(readDelay)
	defer t.Stop()
	start, want := t.C, l.want
	for {
		select {
		case <-start:
			start, want, reading = nil, nil, l.read(ctx)
		case <-want:
			start, want, reading = nil, nil, l.read(ctx)
		case <-l.released:
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
				return
			}
			own, reading = nil, l.read(ctx)
		case r := <-reading:
			reading = nil
			if r.err != nil {
				if errors.Is(r.err, context.Canceled) {
					return // released meanwhile
				}
				why = "reading the lease node failed: " + r.err.Error()
				return
			}
			if r.owner != sess.ID() {
				why = "the lease node belongs to another session"
				return
			}
			if l.token == 0 {
				l.token = r.czxid
				close(l.known)
			}
			own = r.ch
		}
	}
}

type readResult struct {
	czxid, owner int64
	ch           <-chan zk.Event
	err          error
}

// read reads the lease node and leaves a data watch on it, on a goroutine
// of its own that ends with the read (ctx is cancelled on Release).
func (l *Lease) read(ctx context.Context) <-chan readResult {
	out := make(chan readResult, 1)
	go func() {
		_, st, ch, err := l.c.GetW(ctx, l.node.Path)
		r := readResult{ch: ch, err: err}
		if st != nil {
			r.czxid, r.owner = st.Czxid, st.EphemeralOwner
		}
		out <- r
	}()
	return out
}

var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
