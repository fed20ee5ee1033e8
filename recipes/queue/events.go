package queue

import (
	"fmt"

	"github.com/go-zkrecipes/zkrecipes/internal/enum"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// EventType says what happened to an item outside the normal course (an
// item put, taken and removed makes no event).
type EventType int

const (
	// Requeued: a lock-safe handler returned an error (Requeue mode), or
	// a commit given with Item.CommitWith was refused: the item went back
	// to the tail of the queue under its id, priority or due time (of a
	// node from PutMulti, the items not processed yet), after a backoff
	// (WithRequeueBackoff). Err is why: the handler's error, or for a
	// refused commit a *client.OpError naming the op by its index among
	// the ops given to CommitWith for the node (from 0) and its path.
	Requeued EventType = iota + 1
	// Dropped: a handler returned an error and the item is gone: Delete
	// mode, a queue without lock path (where it was removed before its
	// handler ran, as in Curator), or an item whose last attempt failed
	// (WithMaxAttempts, no dead-letter path: Err wraps ErrMaxAttempts).
	// Err is the handler's error, or the refused commit's.
	Dropped
	// Corrupt: an item node's data is not in Curator's item format; it
	// was removed, unprocessed (Curator does the same). Err wraps
	// ErrCorrupt.
	Corrupt
	// CommitLost: lock-safe: the session holding the item's lock ended
	// before its removal was confirmed. Another consumer may process the
	// item again, or the removal committed unseen. Err wraps ErrLost.
	CommitLost
	// Released: lock-safe: the item's handler was stopped (Close, the
	// ctx of Consume, or the lock's loss) and returned an error; its lock
	// was given up and the item left where it was, for another consumer.
	Released
	// MaybeLost: without lock path, the reply to an item's removal was
	// lost and the item is gone: this consumer or another removed it. It
	// is not delivered here (at most once). Err is the connection's.
	MaybeLost
	// Foreign: a child of the queue that is no item of this kind (its
	// name lacks the prefix); it is skipped. Told once per name.
	Foreign
	// DeadLettered: lock-safe: the item's last attempt failed
	// (WithMaxAttempts) and it was moved to the dead-letter path
	// (WithDeadLetterPath), in one transaction with its removal.
	// DeadLetter is its new node; Err wraps ErrMaxAttempts and the last
	// failure.
	DeadLettered
)

// String names the type.
func (t EventType) String() string {
	return enum.Name(t, Requeued, "EventType", "REQUEUED", "DROPPED", "CORRUPT", "COMMIT_LOST", "RELEASED", "MAYBE_LOST", "FOREIGN",
		"DEAD_LETTERED")
}

// Event is one thing that happened to an item, as a consumer of this
// handle saw it.
type Event struct {
	// Type is what happened.
	Type EventType
	// Node is the item node's name (under the queue's path).
	Node string
	// Err says why (nil for Foreign).
	Err error
	// DeadLetter is, for DeadLettered, the item's node under the
	// dead-letter path (relative to the client's namespace); "" when the
	// move's reply was lost (it was made all the same).
	DeadLetter string
}

// String is the event in one line.
func (e Event) String() string {
	s := fmt.Sprintf("%v %s", e.Type, e.Node)
	if e.DeadLetter != "" {
		s += " -> " + e.DeadLetter
	}
	if e.Err == nil {
		return s
	}
	return fmt.Sprintf("%s: %v", s, e.Err)
}

// events returns a new subscription: every event from now on, in order,
// none dropped, until cancel or Close.
func (q *core) events() (<-chan Event, func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return pubsub.Closed[Event](), func() {}
	}
	s := pubsub.New[Event]()
	q.subs[s] = struct{}{}
	q.subWG.Add(1)
	go func() {
		defer q.subWG.Done()
		s.Run()
	}()
	return s.Out(), func() {
		q.mu.Lock()
		delete(q.subs, s)
		q.mu.Unlock()
		s.Stop()
	}
}

// publish tells every subscriber, and the log: Warn for what loses or
// repeats work, Debug for the rest.
func (q *core) publish(ev Event) {
	switch ev.Type {
	case CommitLost, MaybeLost, Corrupt:
		q.log.Warn("zkrecipes: "+q.k.String()+" item", "event", ev.Type.String(), "node", ev.Node, "err", ev.Err)
	default:
		q.log.Debug("zkrecipes: "+q.k.String()+" item", "event", ev.Type.String(), "node", ev.Node, "err", ev.Err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for s := range q.subs {
		s.Push(ev)
	}
}

// closedEvents is the channel of a handle that can give no events.
func closedEvents() <-chan Event { return pubsub.Closed[Event]() }
