package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// A lock-safe item is held by an ephemeral lock node of one session. Every
// write about it (its removal, a requeue, the lock's release) is sent only
// on a connection of that session: the server refuses a request of a
// session it has expired, so a write that went through was made while the
// lock node was still that session's, and no other consumer can have
// taken the item.

// errSessionGone reports that the session holding a lock ended.
var errSessionGone = fmt.Errorf("%w: the session holding the lock ended", zkrecipes.ErrSessionLost)

// sessionConn returns a connection and the session it carries.
func (q *core) sessionConn(ctx context.Context) (*client.Conn, *client.Session, error) {
	for {
		conn, err := q.cl.Conn(ctx)
		if err != nil {
			return nil, nil, err
		}
		if sess := q.cl.Session(); sess != nil && sess.ID() == conn.SessionID() && sess.Err() == nil {
			return conn, sess, nil
		}
		// A new session came between the two looks: look again.
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
	}
}

// onSession returns a connection of sess, waiting while the client
// reconnects; errSessionGone once sess has ended (then its ephemeral nodes
// are gone, or go as soon as the server expires it). It gives up only
// when sess ends or the client closes: whatever a lock's holder must still
// do is bounded by its session's life.
func (q *core) onSession(sess *client.Session) (*client.Conn, error) {
	ctx, cancel := pubsub.CancelOnClose(context.Background(), sess.Done())
	defer cancel()
	if sess.Err() != nil {
		return nil, errSessionGone
	}
	conn, err := q.cl.Conn(ctx)
	switch {
	case err != nil && sess.Err() != nil:
		return nil, errSessionGone
	case err != nil:
		return nil, err // the client closed
	case conn.SessionID() != sess.ID():
		return nil, errSessionGone
	}
	return conn, nil
}

// connLost reports whether err is the loss of a request's connection: its
// outcome is unknown.
func connLost(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrClosing) ||
		errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrSessionMoved)
}

// release deletes a lock node of sess, on sess only: once sess has ended
// the server removed it. It returns once the node is gone.
func (q *core) release(sess *client.Session, lock string) error {
	q.log.Debug("zkrecipes: queue lock released", "lock", lock, "session", sess.ID())
	for {
		conn, err := q.onSession(sess)
		if errors.Is(err, errSessionGone) {
			return nil
		}
		if err != nil {
			return err
		}
		err = conn.Delete(context.Background(), lock, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode):
			return nil
		case connLost(err):
			continue
		}
		return err
	}
}

// lockHeld reads the lock node on sess: whether it is still there, this
// handle's and sess's, with its stat and the client's Disconnected channel
// as it was just before the read (for a holding that goes on).
// errSessionGone once sess has ended.
func (q *core) lockHeld(sess *client.Session, lock string) (bool, *zk.Stat, <-chan struct{}, error) {
	for {
		conn, err := q.onSession(sess)
		if err != nil {
			return false, nil, nil, err
		}
		disc := q.cl.Disconnected()
		data, st, err := conn.Get(context.Background(), lock)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return false, nil, nil, nil
		case err == nil:
			return st.EphemeralOwner == sess.ID() && string(data) == string(q.lockData), st, disc, nil
		case connLost(err):
			continue
		}
		return false, nil, nil, err
	}
}
