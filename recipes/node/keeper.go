package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// keeper is the goroutine that keeps a Node's node: the only one that does
// the node's I/O, so creates and writes never race one another. Its fields
// are its own; what others read lives in Node, under Node.mu.
type keeper struct {
	n  *Node
	cl *client.Client

	watch     *client.Watch // the watch on watchPath, until it fires (given up when the keeper ends)
	watchPath string
	czxid     int64           // the node the handle holds (0: none), told apart from a later one at the same path
	owner     int64           // its ephemeral owner (0: persistent)
	nodeSess  *client.Session // that owner, when it is a session of this client (nil: persistent or another's)
	made      bool            // a create of the handle may have made the node at path
	madePath  string          // that path, while made ("" when the create surely made none: refused, or a protected one that cleaned up)
	// lost is the handle's own ephemeral node that it gave up with its
	// session (nil: none). The server may hold that session, and so the
	// node, for a while yet (the client gave it up first, or the server
	// restarted): Close still deletes it, with one last try.
	lost *lostNode
	// mine are the sessions this client had while the handle ran: an
	// ephemeral node of one of them that is over is a leftover to delete,
	// not another process's node to adopt.
	mine map[int64]*client.Session
}

// run keeps the node until Close (the node's stopCtx) or until the client
// closes (states is closed), then deletes it if Close asked.
func (k *keeper) run(states <-chan client.StateChange) {
	n := k.n
	ctx := n.stopCtx
	defer k.finish()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var retryC <-chan time.Time
	delay := minRetry
	var touchC <-chan time.Time
	if n.o.ttlSet {
		t := time.NewTicker(max(n.o.ttl/2, time.Millisecond))
		defer t.Stop()
		touchC = t.C
	}
	due := true
	for {
		if due {
			err := k.ensure(ctx)
			switch {
			case err == nil:
				due, delay, retryC = false, minRetry, nil
				retry.Stop()
			case ctx.Err() != nil:
				return
			case errors.Is(err, zkrecipes.ErrClosed):
				k.clientClosed()
				return
			case errors.Is(err, zkrecipes.ErrNotStarted):
				// Its Connected (on states) will tell.
				due = false
			case errors.Is(err, errSessionEnded):
				// The state change follows on states; look again after it.
				due = false
				retry.Reset(minRetry)
				retryC = retry.C
			default:
				n.log.Warn("persistent node: keeping the node failed; retrying", "path", n.base, "err", err, "in", delay)
				due = false
				retry.Reset(delay)
				retryC = retry.C
				delay = min(2*delay, maxRetry)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-k.watch.Events(): // fired or dropped: look again
			k.watch, due = nil, true
		case <-n.poke:
			due = true
		case <-retryC:
			retryC, due = nil, true
		case <-touchC:
			k.touch(ctx)
		case sc, ok := <-states:
			if !ok {
				k.clientClosed()
				return
			}
			switch sc.State {
			case client.StateLost:
				if k.owner != 0 && k.owner == sc.SessionID {
					k.sessionEnded() // a new session makes it again
				}
				due = true
			case client.StateConnected, client.StateReconnected:
				due = true
			}
		}
	}
}

// maxSteps bounds one ensure: a node deleted under the handle again and
// again goes through the retry delays instead of a busy loop.
const maxSteps = 8

// errUnsettled ends an ensure whose node did not settle within maxSteps.
var errUnsettled = errors.New("zkrecipes: the node keeps changing under its handle")

// ensure makes sure the node exists, is the handle's (or adopted), is
// watched, and holds the latest data.
func (k *keeper) ensure(ctx context.Context) error {
	for range maxSteps {
		settled, err := k.step(ctx)
		if err != nil || settled {
			return err
		}
	}
	return errUnsettled
}

// step is one look at the node and what follows from it: a create, a
// leftover's delete, a data write, or nothing (settled).
//
// Its reads and writes end with the session they run in (errSessionEnded),
// so that the keeper hears of a lost session at once instead of waiting
// for a new one inside a request; its creates do not: they carry over into
// the next session themselves (see create).
func (k *keeper) step(ctx context.Context) (settled bool, err error) {
	if k.nodeSess != nil && isDone(k.nodeSess) {
		// The node's session ended (the state change may not have reached
		// the keeper yet): the node is gone, whatever comes next.
		k.sessionEnded()
	}
	sess, err := k.cl.WaitSession(ctx)
	if err != nil {
		return false, err
	}
	k.remember(sess)
	sctx, release := bound(ctx, sess)
	defer release()
	defer func() {
		if err != nil && sctx.Err() != nil && ctx.Err() == nil {
			err = errSessionEnded
		}
	}()
	path := k.n.Path()
	if path == "" {
		return false, k.create(ctx)
	}
	ok, st, err := k.check(sctx, path)
	if err != nil {
		return false, err
	}
	if !ok {
		k.gone()
		k.forgetLost(path) // not there: gone
		return false, k.create(ctx)
	}
	cur := k.cl.Session()
	owner := st.EphemeralOwner
	switch {
	case st.Czxid == k.czxid:
		// The node the handle holds: nothing new.
	case owner != 0 && (cur == nil || owner != cur.ID()) && k.mine[owner] != nil:
		// The handle's own node of a session that is over (the client gave
		// it up before the server expired it): delete it, make a new one.
		k.gone()
		k.abandon(sctx, path, k.mine[owner])
		k.forgetLost(path) // deleted, or left to the guaranteed delete
		return false, k.create(ctx)
	default:
		k.take(path, st, cur)
	}
	return k.write(sctx, path)
}

// errSessionEnded ends a step whose session ended under it.
var errSessionEnded = errors.New("zkrecipes: the session ended")

// bound returns a context that ends with ctx or once sess ends, and the
// function that releases it.
func bound(ctx context.Context, sess *client.Session) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-sess.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// check reads whether path exists, leaving a watch on it unless one that
// has not fired is there already (a watch outlives a reconnect to the same
// session; a lost session fires it).
func (k *keeper) check(ctx context.Context, path string) (bool, *zk.Stat, error) {
	if k.watch != nil && k.watchPath == path {
		return k.cl.Exists(ctx, path)
	}
	k.watch.Stop() // on another path, if any
	k.watch = nil
	ok, st, w, err := k.cl.ExistsWatch(ctx, path)
	if err != nil {
		return false, nil, err
	}
	k.watch, k.watchPath = w, path
	return ok, st, nil
}

// take makes the node at path, found there with stat st, the one the
// handle holds: its own if a create of the handle may have made it (and,
// for an ephemeral node, in the live session cur), else adopted.
func (k *keeper) take(path string, st *zk.Stat, cur *client.Session) {
	n := k.n
	owner := st.EphemeralOwner
	typ := Adopted
	if k.made && (owner == 0 || (cur != nil && owner == cur.ID())) {
		typ = Created
	}
	k.czxid, k.owner, k.made, k.madePath = st.Czxid, owner, false, ""
	k.forgetLost(path)         // the node there now is this one
	k.nodeSess = k.mine[owner] // nil for a persistent node (owner 0) and another's
	if typ == Adopted {
		if (owner != 0) != n.o.mode.ephemeral() {
			n.log.Warn("persistent node: the node found at the path is not of the mode asked for; taken over all the same, as Curator does",
				"path", path, "mode", n.o.mode, "ephemeralOwner", fmt.Sprintf("0x%x", uint64(owner)))
		} else {
			n.log.Debug("persistent node: taking over the node found at the path", "path", path,
				"ephemeralOwner", fmt.Sprintf("0x%x", uint64(owner)))
		}
	}
	n.mu.Lock()
	n.path = path
	n.created = true
	n.failure = nil
	n.publishLocked(Event{Type: typ, Path: path, Session: owner})
	n.changedLocked()
	n.mu.Unlock()
}

// gone records that the handle holds no node now: it was deleted, or its
// session ended. The path stays (a re-create may reuse it).
func (k *keeper) gone() {
	k.czxid, k.owner, k.nodeSess = 0, 0, nil
	n := k.n
	n.mu.Lock()
	defer n.mu.Unlock()
	n.written = 0 // whatever node comes next must get the data
	if n.present {
		n.publishLocked(Event{Type: Gone, Path: n.path, Session: n.last.Session})
		n.changedLocked()
	}
}

// lostNode is a node of the handle's that went with its session.
type lostNode struct {
	path string
	sess *client.Session
}

// sessionEnded records that the node the handle holds ended with its
// session (gone, and remembered in lost when it was the handle's own).
func (k *keeper) sessionEnded() {
	if k.nodeSess != nil {
		k.lost = &lostNode{path: k.n.Path(), sess: k.nodeSess}
	}
	k.gone()
}

// forgetLost forgets the lost node when it was at path.
func (k *keeper) forgetLost(path string) {
	if k.lost != nil && k.lost.path == path {
		k.lost = nil
	}
}

// clientClosed records that the keeper ends with its client.
func (k *keeper) clientClosed() {
	n := k.n
	n.mu.Lock()
	defer n.mu.Unlock()
	n.early = true
	n.failure = fmt.Errorf("zkrecipes: node %s: %w", n.base, errs.ClientClosed)
	n.failGen = n.dataGen
	n.changedLocked()
}

// finish deletes the node when the keeper ends because of Close.
func (k *keeper) finish() {
	k.watch.Stop()
	k.watch = nil
	n := k.n
	n.mu.Lock()
	closing, early, ctx := n.phase == closed, n.early, n.closeCtx
	n.mu.Unlock()
	if !closing || early {
		return
	}
	path, sess := k.held()
	err := n.deleteNode(ctx, path, sess)
	if l := k.lost; l != nil && l.path != path {
		// Ended with its session: gone, or going when the server expires
		// it; the guaranteed delete returns at once, and makes one last
		// try on the next session.
		err = errors.Join(err, n.cl.DeleteGuaranteed(ctx, l.path, l.sess))
	}
	n.mu.Lock()
	n.closeErr = err
	n.mu.Unlock()
}

// held is the node Close deletes and the session it is bound to (nil:
// persistent, or another's): the node the handle holds; else the one a
// create of the handle may have made and the handle has not looked at
// yet (an ephemeral one in the client's latest session, where the create
// ran last); else the one it lost with its session; else none (""). A
// node deleted by someone is gone: nothing to delete.
func (k *keeper) held() (string, *client.Session) {
	switch {
	case k.czxid != 0:
		return k.n.Path(), k.nodeSess
	case k.made && k.madePath != "":
		if k.n.o.mode.ephemeral() {
			return k.madePath, k.cl.Session()
		}
		return k.madePath, nil
	case k.lost != nil:
		return k.lost.path, k.lost.sess
	}
	return "", nil
}

// maxSessions bounds mine: sessions that are over are forgotten past it.
const maxSessions = 64

// remember adds sess to the client's sessions the handle knows.
func (k *keeper) remember(sess *client.Session) {
	if k.mine[sess.ID()] != nil {
		return
	}
	if len(k.mine) >= maxSessions {
		for id, s := range k.mine {
			if s != k.nodeSess && isDone(s) {
				delete(k.mine, id)
			}
		}
	}
	k.mine[sess.ID()] = sess
}

func isDone(s *client.Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}
