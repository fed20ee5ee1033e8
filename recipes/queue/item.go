package queue

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// Handler processes one item. Consume calls it for each item it takes, one
// at a time. On a lock-safe queue (WithLockPath) the item is removed only
// once the handler returned nil, and ctx ends when the item's lock may be
// gone (the connection is suspended, or with WithLostOnSessionLossOnly the
// session is lost), when Close is called or when the ctx of Consume ends:
// the handler should then stop and return ctx's error, and the item stays
// in the queue for another consumer. An error otherwise is handled by the
// queue's ErrorMode. Without a lock path the item was removed before the
// handler was called (at most once, as in Curator): its error is only
// told (a Dropped event).
type Handler func(ctx context.Context, it *Item) error

// Item is one item as a handler gets it. A node put with PutMulti holds
// several: the handler is called for each, in order, with the same Node.
type Item struct {
	// Data is the item's bytes as the producer gave them.
	Data []byte
	// Node is the name of the node holding the item, under the queue's
	// path (e.g. "queue-0000000042").
	Node string
	// Index and Count are the item's place in its node and the node's
	// item count (0 and 1 for a Put).
	Index, Count int
	// Created is the node's creation time, by the server's clock.
	Created time.Time
	// Token is, on a lock-safe queue, the czxid of the item's lock node:
	// it grows with every take of any item of the queue, so a resource the
	// handler writes to can refuse a consumer that lost its lock and was
	// replaced. 0 without a lock path.
	Token int64
	// ID is the item's id (IDQueue; "" otherwise), as its node name holds
	// it ('/' and '|' made '_').
	ID string
	// Priority is the item's priority (PriorityQueue; 0 otherwise).
	Priority int32
	// Due is when the item became due (DelayQueue; zero otherwise).
	Due time.Time
	// Attempts is, on a lock-safe queue, how many attempts at the item's
	// node failed before this one, as Go consumers count them (see
	// WithMaxAttempts): 0 the first time.
	Attempts int

	mu     sync.Mutex
	commit *commitOps // lock-safe: the ops of the node's removal; nil otherwise
	ops    userOps
	sealed bool
	q      *core
}

// commitOps is the size budget of one node's removal transaction.
type commitOps struct {
	size int // the transaction's size so far, in bytes
}

// userOps are the ops handlers gave CommitWith, in order: the copies sent
// (paths under the namespace), and each op as given, to name it in an
// error.
type userOps struct {
	ops   []any
	names []opName
}

// opName is an op as a handler gave it: its kind ("create", "delete",
// "set", "check", as client.OpError names them) and its path, relative to
// the client's namespace.
type opName struct{ kind, path string }

// add appends more.
func (u *userOps) add(more userOps) {
	u.ops = append(u.ops, more.ops...)
	u.names = append(u.names, more.names...)
}

// CommitWith adds ops to the transaction that removes the item's node
// (lock-safe queues only): they commit if and only if the item is removed,
// once, by this consumer. With it, what a handler records in ZooKeeper
// happens exactly once per item, whatever fails: a consumer that loses its
// lock cannot commit, and the item's next consumer commits its own. ops
// are what client.Multi takes (*zk.CreateRequest, *zk.DeleteRequest,
// *zk.SetDataRequest, *zk.CheckVersionRequest) with paths relative to the
// client's namespace; they are copied. If the transaction fails because of
// one of them, the item is handled as if the handler had failed (a
// Requeued or Dropped event, whose error is a *client.OpError naming the
// op by its index among the ops given to CommitWith for the item's node,
// from 0, and its path as given). Call it from the handler, before it returns;
// an error wrapping ErrNotLockSafe without a lock path,
// zkrecipes.ErrInvalidArgument for a bad op or a call after the handler
// returned, a *TooLargeError when the transaction would exceed the
// server's limit.
func (it *Item) CommitWith(ops ...any) error {
	if it == nil || it.q == nil {
		return errZero("Item")
	}
	if it.commit == nil {
		return it.q.wrap("commit with", ErrNotLockSafe)
	}
	copies := userOps{ops: make([]any, 0, len(ops)), names: make([]opName, 0, len(ops))}
	size := 0
	cl := it.q.cl
	for _, op := range ops {
		cp, name, n, err := copyOp(cl, op)
		if err != nil {
			return err
		}
		copies.ops = append(copies.ops, cp)
		copies.names = append(copies.names, name)
		size += 9 + n
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.sealed {
		return invalidArg("CommitWith after the handler of %s returned", it.Node)
	}
	if err := it.q.checkSize(it.commit.size + size); err != nil {
		return err
	}
	it.commit.size += size
	it.ops.add(copies)
	return nil
}

// seal ends the handler's use of the item and returns its ops.
func (it *Item) seal() userOps {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.sealed = true
	return it.ops
}

// copyOp checks and copies one op for a removal transaction, with its path
// under c's namespace, and returns its name as given and its body's size.
func copyOp(c *client.Client, op any) (any, opName, int, error) {
	path := func(p string) (string, error) {
		if err := client.ValidatePath(p); err != nil {
			return "", err
		}
		return access.Full(c, p), nil
	}
	switch o := op.(type) {
	case *zk.CreateRequest:
		if o != nil {
			p, err := path(o.Path)
			cp := &zk.CreateRequest{Path: p, Data: bytes.Clone(o.Data), Acl: slices.Clone(o.Acl), Flags: o.Flags}
			return cp, opName{"create", o.Path}, createBody(p, len(o.Data)), err
		}
	case *zk.DeleteRequest:
		if o != nil {
			p, err := path(o.Path)
			return &zk.DeleteRequest{Path: p, Version: o.Version}, opName{"delete", o.Path}, deleteBody(p), err
		}
	case *zk.SetDataRequest:
		if o != nil {
			p, err := path(o.Path)
			return &zk.SetDataRequest{Path: p, Data: bytes.Clone(o.Data), Version: o.Version}, opName{"set", o.Path},
				4 + len(p) + 4 + len(o.Data) + 4, err
		}
	case *zk.CheckVersionRequest:
		if o != nil {
			p, err := path(o.Path)
			return &zk.CheckVersionRequest{Path: p, Version: o.Version}, opName{"check", o.Path}, deleteBody(p), err
		}
	}
	return nil, opName{}, 0, invalidArg("unsupported transaction op %T", op)
}
