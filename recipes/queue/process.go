package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// newItem is item k of t's node.
func (q *core) newItem(t *taken, data []byte, k, count int, commit *commitOps) *Item {
	it := &Item{Data: data, Node: t.e.name, Index: k, Count: count, Attempts: attemptsOf(t.data), commit: commit, q: q}
	if t.stat != nil {
		it.Created = time.UnixMilli(t.stat.Ctime)
	}
	if t.lockStat != nil {
		it.Token = t.lockStat.Czxid
	}
	switch q.k {
	case kindID:
		if id, _, ok := parseID(t.e.name); ok {
			it.ID = id
		}
	case kindPriority:
		it.Priority, _ = parsePriority(t.e.name)
	case kindDelay:
		it.Due = t.e.dueAt()
	}
	return it
}

// process hands t's items to h and then removes, requeues or releases t
// (lock-safe), or only tells of a failure (t was removed already). It
// reports whether a handler failed. Given next (lock-safe), an item that
// removed as it should takes next in the same round trip as its removal:
// tried then says whether it did, and nt, nerr are that take's outcome
// (tookLocked's).
func (q *core) process(ctx context.Context, h Handler, t *taken, next *entry) (failed bool, nt *taken, tried bool, nerr error) {
	items, err := decodeItems(t.data)
	if err != nil {
		err = fmt.Errorf("%w: %v", ErrCorrupt, err)
		if q.lockSafe() {
			q.finish(ctx, t, q.removeOps(t, userOps{}), nil, Event{Type: Corrupt, Node: t.e.name, Err: err}, nil, 0)
			return false, nil, false, nil
		}
		q.publish(Event{Type: Corrupt, Node: t.e.name, Err: err})
		return false, nil, false, nil
	}
	if !q.lockSafe() {
		for k, data := range items {
			if err := h(ctx, q.newItem(t, data, k, len(items), nil)); err != nil {
				q.publish(Event{Type: Dropped, Node: t.e.name, Err: err})
				failed = true
			}
		}
		return failed, nil, false, nil
	}
	hctx, stop := q.holding(ctx, t)
	commit := &commitOps{size: multiSize(deleteBody(t.lock), deleteBody(q.itemPath(t.e.name)))}
	var ops userOps
	at, stopped := -1, false
	var cause error
	for k, data := range items {
		it := q.newItem(t, data, k, len(items), commit)
		err := h(hctx, it)
		mine := it.seal()
		if err == nil {
			ops.add(mine)
			continue
		}
		failed = true
		if hctx.Err() != nil {
			at, stopped, cause = k, true, err
			break
		}
		if q.o.errorMode == Delete {
			q.publish(Event{Type: Dropped, Node: t.e.name, Err: err}) // Curator goes on with the node's next items
			continue
		}
		at, cause = k, err
		break
	}
	stop()
	switch {
	case at < 0 && next != nil && ctx.Err() == nil:
		nt, tried, nerr = q.finishTaking(ctx, t, q.removeOps(t, ops), items, *next)
	case at < 0:
		q.finish(ctx, t, q.removeOps(t, ops), items, Event{}, nil, 0)
	case stopped && at == 0:
		q.publish(Event{Type: Released, Node: t.e.name, Err: cause})
		if err := q.release(t.sess, t.lock); err != nil {
			q.log.Warn("zkrecipes: queue lock release", "lock", t.lock, "err", err)
		}
	case stopped:
		// Stopped, not failed: the node's items from the stopped one on
		// go back to the tail at once, their attempts as they were; those
		// before were processed, and their ops commit.
		q.finish(ctx, t, q.requeueOps(t, items[at:], ops, attemptsOf(t.data)), items,
			Event{Type: Requeued, Node: t.e.name, Err: cause}, nil, 0)
	default:
		// The node's items from failed on go back to the tail, after a
		// backoff, or are given up (see attempts.go); those before were
		// processed, and their ops commit.
		n := q.attemptFailed(ctx, t, cause)
		x, ev := q.afterFailure(t, items[at:], ops, n, cause)
		q.finish(ctx, t, x, items, ev, nil, n)
	}
	return failed, nt, tried, nerr
}

// finishTaking is finish of t's removal ops with the take of next in the
// same batch, after it: a consumer working through a listing commits one
// item and takes the next in one round trip. It falls back to a plain
// finish (tried false) when the batch cannot go out on t's session.
func (q *core) finishTaking(ctx context.Context, t *taken, x tx, items [][]byte, next entry) (*taken, bool, error) {
	conn, err := q.onSession(t.sess)
	if err != nil || q.checkSize(opsSize(x.ops)) != nil {
		q.finish(ctx, t, x, items, Event{}, nil, 0)
		return nil, false, nil
	}
	disc := q.cl.Disconnected()
	b := conn.Batch()
	mr := b.Multi(x.ops...)
	tr := q.addTake(b, next)
	if err := b.Send(context.Background()); err != nil {
		q.finish(ctx, t, x, items, Event{}, nil, 0)
		return nil, false, nil
	}
	res, merr := mr.Results()
	q.finish(ctx, t, x, items, Event{}, &multiReply{res: res, err: merr}, 0)
	nt, nerr := q.tookLocked(ctx, next, t.sess, disc, tr)
	return nt, true, nerr
}

// multiReply is a removal transaction's reply already in hand.
type multiReply struct {
	res []zk.MultiResponse
	err error
}

// holding returns the handler's context for a lock-safe item: ctx, also
// ended when the item's lock may be gone.
func (q *core) holding(ctx context.Context, t *taken) (context.Context, func()) {
	hctx, cancel := context.WithCancelCause(ctx)
	disc := t.disc
	if q.o.sessionLossOK {
		disc = nil
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-t.sess.Done():
			cancel(fmt.Errorf("%w: %w", ErrLost, errSessionGone))
		case <-disc:
			cancel(fmt.Errorf("%w: the connection was suspended", ErrLost))
		case <-quit:
		case <-hctx.Done():
		}
	}()
	return hctx, func() {
		close(quit)
		<-done
		cancel(nil)
	}
}

// tx is a transaction about a taken node: the queue's own ops first (fixed
// of them: the deletes of the node and its lock, and a requeue's or a dead
// letter's create), then the handlers' (Item.CommitWith).
type tx struct {
	ops   []any
	fixed int
	u     userOps  // the handlers' ops, ops[fixed:]
	rest  [][]byte // a requeue's or a dead letter's items
	dead  bool     // ops[2] creates the node under the dead-letter path
}

// userErr is the error of a transaction refused because of a handler's
// op: a *client.OpError naming it by its index among the handlers' ops
// and its path, as given.
func (x tx) userErr(e *failedOpError) error {
	i := e.index - x.fixed
	if i < 0 || i >= len(x.u.names) {
		return e
	}
	return &client.OpError{Index: i, Op: x.u.names[i].kind, Path: x.u.names[i].path, Err: e.err}
}

// removeOps is the transaction that removes t's node and lock, with u.
func (q *core) removeOps(t *taken, u userOps) tx {
	return tx{ops: append([]any{
		&zk.DeleteRequest{Path: q.itemPath(t.e.name), Version: -1},
		&zk.DeleteRequest{Path: t.lock, Version: -1},
	}, u.ops...), fixed: 2, u: u}
}

// requeueOps is the transaction that removes t's node and lock and puts
// rest back at the tail under the same name prefix, marked with attempts
// failed attempts (see attempts.go), with u.
func (q *core) requeueOps(t *taken, rest [][]byte, u userOps, attempts int) tx {
	ops := append(q.removeOps(t, userOps{}).ops, &zk.CreateRequest{
		Path: q.full + "/" + q.k.requeuePrefix(t.e.name), Data: withAttempts(encodeItems(rest), attempts), Flags: zk.FlagSequence,
	})
	return tx{ops: append(ops, u.ops...), fixed: 3, u: u, rest: rest}
}

// finish commits t's transaction x on the lock's session (see session.go),
// and tells ev (when it has a type) once it committed. A transaction that
// fails because of the ops a handler added is made again without them, as
// a handler's failure: in Delete mode a plain removal; in Requeue mode a
// failed attempt (attempts.go), counted unless counted says that this
// take's failure was counted already (its attempt number; 0 for none).
func (q *core) finish(ctx context.Context, t *taken, x tx, items [][]byte, ev Event, first *multiReply, counted int) {
	madeDead := false
	for {
		if err := q.checkSize(opsSize(x.ops)); err != nil {
			// Only a requeue can outgrow the limit (a node put by another
			// client, close to it): leave the item where it is instead.
			q.publish(Event{Type: Released, Node: t.e.name, Err: err})
			if rerr := q.release(t.sess, t.lock); rerr != nil {
				q.log.Warn("zkrecipes: queue lock release", "lock", t.lock, "err", rerr)
			}
			return
		}
		res, err := q.commit(t, x.ops, first)
		first = nil
		q.log.Debug("zkrecipes: queue item committed", "lock", t.lock, "session", t.sess.ID(), "event", ev.Type, "err", err)
		var opErr *failedOpError
		switch {
		case err == nil:
			if ev.Type == DeadLettered {
				ev.DeadLetter = q.deadName(res)
			}
			if ev.Type != 0 {
				q.publish(ev)
			}
			return
		case errors.As(err, &opErr) && opErr.index >= x.fixed:
			// A handler's op failed: handle the item as failed.
			cause := x.userErr(opErr)
			switch {
			case items == nil:
				x, ev = q.removeOps(t, userOps{}), Event{Type: Corrupt, Node: t.e.name, Err: cause}
			case q.o.errorMode == Delete:
				x, ev = q.removeOps(t, userOps{}), Event{Type: Dropped, Node: t.e.name, Err: cause}
			default:
				if counted == 0 {
					counted = q.attemptFailed(ctx, t, cause)
				}
				x, ev = q.afterFailure(t, items, userOps{}, counted, cause)
			}
			continue
		case x.dead && errors.As(err, &opErr) && opErr.index == 2:
			// The dead letter's create failed: its path is missing (never
			// made, or reaped: it is a container), or refuses it.
			if errors.Is(opErr.err, zk.ErrNoNode) && !madeDead {
				madeDead = true
				if err := q.makeDeadLetter(t); err == nil {
					continue
				}
			}
			// Keep the item rather than lose it: requeued, after a
			// backoff so that it cannot spin.
			q.log.Warn("zkrecipes: queue item cannot go to the dead-letter path: requeued instead",
				"node", t.e.name, "dead_letter", q.o.deadLetter, "err", opErr.err)
			sleepHeld(ctx, t, q.backoff(counted))
			x, ev = q.requeueOps(t, x.rest, x.u, counted), Event{Type: Requeued, Node: t.e.name, Err: fmt.Errorf("dead-letter path %s: %w", q.o.deadLetter, opErr.err)}
			continue
		case errors.Is(err, errSessionGone):
			q.publish(Event{Type: CommitLost, Node: t.e.name, Err: fmt.Errorf("%w: %w", ErrLost, err)})
			return
		}
		// The item's node or the lock was deleted under the lock (by
		// hand, or a consumer that takes no lock): nothing committed.
		q.publish(Event{Type: CommitLost, Node: t.e.name, Err: fmt.Errorf("%w: %w", ErrLost, err)})
		if rerr := q.release(t.sess, t.lock); rerr != nil {
			q.log.Warn("zkrecipes: queue lock release", "lock", t.lock, "err", rerr)
		}
		return
	}
}

// failedOpError is a transaction refused because of its op index (among
// all the transaction's ops: see tx.userErr for the handlers' own).
type failedOpError struct {
	index int
	err   error
}

func (e *failedOpError) Error() string {
	return fmt.Sprintf("transaction op %d: %v", e.index, e.err)
}

func (e *failedOpError) Unwrap() error { return e.err }

// commit runs ops on t's lock session until it is known to have committed
// or not, and returns the transaction's results (nil when it committed
// unanswered). The lock node is the mark: the transaction deletes it, and
// in the session that owns it nobody else does, so after a lost reply a
// lock still there means not applied (sent again), and a lock gone means
// applied. errSessionGone once the session ended without an answer.
func (q *core) commit(t *taken, ops []any, first *multiReply) ([]zk.MultiResponse, error) {
	for {
		var res []zk.MultiResponse
		var err error
		if first != nil {
			res, err, first = first.res, first.err, nil
		} else {
			conn, cerr := q.onSession(t.sess)
			if cerr != nil {
				return nil, cerr
			}
			res, err = conn.Multi(context.Background(), ops...)
		}
		if err == nil {
			return res, nil
		}
		if !connLost(err) {
			// The ops before the one that failed answer OK, those after it
			// a runtime inconsistency: the first error is the cause.
			for i, r := range res {
				if r.Error != nil {
					return nil, &failedOpError{index: i, err: r.Error}
				}
			}
			return nil, err
		}
		held, _, _, herr := q.lockHeld(t.sess, t.lock)
		switch {
		case herr != nil:
			return nil, herr
		case !held:
			return nil, nil // the lock is gone: this transaction deleted it
		}
	}
}

// opsSize is the size of a transaction of ops.
func opsSize(ops []any) int {
	bodies := make([]int, 0, len(ops))
	for _, op := range ops {
		switch o := op.(type) {
		case *zk.CreateRequest:
			bodies = append(bodies, createBody(o.Path, len(o.Data)))
		case *zk.DeleteRequest:
			bodies = append(bodies, deleteBody(o.Path))
		case *zk.SetDataRequest:
			bodies = append(bodies, 4+len(o.Path)+4+len(o.Data)+4)
		case *zk.CheckVersionRequest:
			bodies = append(bodies, deleteBody(o.Path))
		}
	}
	return multiSize(bodies...)
}
