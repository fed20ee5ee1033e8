package queue

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// taken is an item node a consumer has taken: lock-safe, its lock node is
// this consumer's; otherwise the node is already deleted.
type taken struct {
	e    entry
	data []byte
	stat *zk.Stat // the item node's
	// Lock-safe only:
	sess     *client.Session // the session of the lock node
	lock     string          // the lock node's path, under the namespace
	lockStat *zk.Stat
	disc     <-chan struct{} // closed at the first suspension after the lock was made
}

// itemPath is an item node's path under the namespace.
func (q *core) itemPath(name string) string { return q.full + "/" + name }

// errHeld is take's error for an item whose lock another consumer holds.
var errHeld = errors.New("zkrecipes: queue item held by another consumer")

// take takes the item node e: nil when it is gone (another consumer took
// it), errHeld when another consumer holds its lock.
func (q *core) take(ctx context.Context, e entry) (*taken, error) {
	if q.lockSafe() {
		return q.takeLocked(ctx, e)
	}
	return q.takeRemoved(ctx, e)
}

// takeLocked takes e by creating its lock node (Curator's lock-safe mode:
// lockPath/<item's name>, ephemeral), then reads the item: both in one
// batch, so one round trip. The read must come after the create: the
// server a session reads from serves its requests in order, so once the
// lock is made it has applied every removal before it, and an item read
// then is not one a consumer already removed (a read sent first could be
// answered from a follower that lags behind).
func (q *core) takeLocked(ctx context.Context, e entry) (*taken, error) {
	for made := false; ; {
		conn, sess, err := q.sessionConn(ctx)
		if err != nil {
			return nil, err
		}
		disc := q.cl.Disconnected() // before the create: a suspension after it is seen
		b := conn.Batch()
		tr := q.addTake(b, e)
		if err := b.Send(context.Background()); err != nil {
			return nil, err
		}
		t, err := q.tookLocked(ctx, e, sess, disc, tr)
		if errors.Is(err, errNoLockPath) && !made {
			if err := q.cl.EnsureContainers(ctx, q.lockPath); err != nil {
				return nil, err
			}
			made = true
			continue
		}
		return t, err
	}
}

// takeReplies are a take's two requests in a batch: the lock's create and
// the item's read, in that order.
type takeReplies struct{ lock, item *client.Reply }

// addTake adds e's take to a batch.
func (q *core) addTake(b *client.Batch, e entry) takeReplies {
	return takeReplies{
		lock: b.Create(q.lockFull+"/"+e.name, q.lockData, zk.FlagEphemeral),
		item: b.Get(q.itemPath(e.name)),
	}
}

// errNoLockPath is tookLocked's error when the lock path is missing: make
// it and take again.
var errNoLockPath = errors.New("zkrecipes: queue lock path missing")

// tookLocked judges a take sent in session sess (disc the client's
// Disconnected channel as it was before the batch): the item taken, nil
// when it is gone, errHeld when another consumer holds it.
func (q *core) tookLocked(ctx context.Context, e entry, sess *client.Session, disc <-chan struct{}, tr takeReplies) (*taken, error) {
	lock := q.lockFull + "/" + e.name
	_, lockStat, err := tr.lock.Created()
	data, st, gerr := tr.item.Data()
	if err != nil {
		gerr = err
	}
	switch {
	case errors.Is(err, zk.ErrNodeExists):
		return nil, errHeld
	case errors.Is(err, zk.ErrNoNode):
		return nil, errNoLockPath
	case connLost(err):
		// The create may have been applied: the lock node says.
		mine, lst, d, herr := q.lockHeld(sess, lock)
		q.log.Debug("zkrecipes: queue lock create's reply lost", "lock", lock, "mine", mine, "err", herr)
		if herr != nil || !mine {
			return nil, nil // not made, gone with its session, or another's
		}
		lockStat, disc = lst, d
	case err != nil:
		return nil, err
	}
	t := &taken{e: e, data: data, stat: st, sess: sess, lock: lock, lockStat: lockStat, disc: disc}
	if gerr != nil && !errors.Is(gerr, zk.ErrNoNode) {
		// The read failed with its connection: read again, the lock held.
		t.data, t.stat, gerr = q.cl.Get(ctx, q.path+"/"+e.name)
	}
	if gerr != nil {
		// The item is gone (another consumer removed it before this lock
		// was made) or cannot be read: give the lock up.
		q.log.Debug("zkrecipes: queue item gone under its lock", "lock", lock, "err", gerr)
		if err := q.release(sess, lock); err != nil {
			return nil, err
		}
		if errors.Is(gerr, zk.ErrNoNode) {
			return nil, nil
		}
		return nil, gerr
	}
	q.log.Debug("zkrecipes: queue item taken", "lock", lock, "session", sess.ID())
	return t, nil
}

// takeRemoved takes e without a lock (Curator's default): read it and
// delete it, in one batch (Curator reads, then deletes at the version read:
// items are never written, so any version is theirs). A delete whose reply
// was lost is judged by looking: still there, it is deleted again; gone,
// someone deleted it, maybe this consumer, and it is not delivered (at most
// once: a MaybeLost event).
func (q *core) takeRemoved(ctx context.Context, e entry) (*taken, error) {
	for {
		conn, err := q.cl.Conn(ctx)
		if err != nil {
			return nil, err
		}
		// The read and the delete in one batch: the delete goes to the
		// leader, so a read answered from a lagging view whose node was
		// removed meanwhile comes with a delete that fails.
		b := conn.Batch()
		gr := b.Get(q.itemPath(e.name))
		dr := b.Delete(q.itemPath(e.name), -1)
		if err := b.Send(context.Background()); err != nil {
			return nil, err
		}
		data, st, gerr := gr.Data()
		err = dr.Err()
		switch {
		case err == nil && gerr == nil:
			return &taken{e: e, data: data, stat: st}, nil
		case err == nil:
			q.publish(Event{Type: MaybeLost, Node: e.name, Err: gerr}) // removed, unread
			return nil, nil
		case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
			return nil, nil // another consumer took it
		case !connLost(err):
			return nil, err
		}
		ok, _, xerr := q.cl.Exists(context.WithoutCancel(ctx), q.path+"/"+e.name)
		if xerr != nil || !ok {
			q.publish(Event{Type: MaybeLost, Node: e.name, Err: err})
			return nil, nil
		}
	}
}
