package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes"
)

// aclReserve is what the size checks allow for a create's ACL: the
// client's own ACL is not known here, and a few entries fit easily.
const aclReserve = 512

// createSize is the size of a create request's frame for a node at full
// (the sequence number is the server's) holding data.
func createSize(full string, data int) int {
	return 8 + 4 + len(full) + 4 + data + aclReserve + 4
}

// multiSize is the size of a transaction's frame: its header, each op's
// header and body, and the closing header.
func multiSize(bodies ...int) int {
	n := 8 + 9
	for _, b := range bodies {
		n += 9 + b
	}
	return n
}

// deleteBody is the body of a delete (or check) op on full.
func deleteBody(full string) int { return 4 + len(full) + 4 }

// createBody is the body of a create op.
func createBody(full string, data int) int { return 4 + len(full) + 4 + data + aclReserve + 4 }

// checkSize refuses a request larger than the server takes.
func (q *core) checkSize(n int) error {
	if n > q.o.maxBuffer {
		return &TooLargeError{Path: q.path, Size: n, Limit: q.o.maxBuffer}
	}
	return nil
}

// putSize is the largest request a node of data bytes named name-prefix
// can need: its create, and for a lock-safe queue the transaction that
// requeues it (two deletes and the create, its data marked with a count of
// failed attempts) or moves it to the dead-letter path.
func (q *core) putSize(prefix string, data int) int {
	item := q.full + "/" + prefix + "0000000000"
	n := createSize(item, data)
	if q.lockSafe() {
		lock := q.lockFull + "/" + prefix + "0000000000"
		n = max(n, multiSize(deleteBody(item), deleteBody(lock), createBody(item, data+attemptsSize)))
		if q.deadFull != "" {
			n = max(n, multiSize(deleteBody(item), deleteBody(lock), createBody(q.deadFull+"/"+prefix+"0000000000", data)))
		}
	}
	return n
}

// put creates one item node named prefix+sequence holding items in
// Curator's format. The create is sent once: a lost answer is a
// *MaybeAppliedError, never a second create. With WithMaxItems it first
// waits for room.
func (q *core) put(ctx context.Context, prefix string, items [][]byte, raw bool) error {
	if err := q.usable(ctx); err != nil {
		return err
	}
	var data []byte
	if raw {
		data = items[0]
	} else {
		data = encodeItems(items)
	}
	if err := q.checkSize(q.putSize(prefix, len(data))); err != nil {
		return err
	}
	if q.o.maxItems > 0 {
		if err := q.waitRoom(ctx); err != nil {
			return err
		}
	}
	path := q.full + "/" + prefix
	for made := false; ; {
		conn, err := q.cl.Conn(ctx)
		if err != nil {
			return q.wrap("put", err) // nothing sent
		}
		if err := ctx.Err(); err != nil {
			return err // Conn does not look at ctx while connected
		}
		_, _, err = conn.Create(ctx, path, data, zk.FlagSequence)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrNoNode) && !made:
			// The queue's node is missing (never made, or reaped: it is a
			// container): make it, and the create again. NoNode means the
			// create was not applied.
			if err := q.cl.EnsureContainers(ctx, q.path); err != nil {
				return q.wrap("put", err)
			}
			made = true
			continue
		case connLost(err), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			if errors.Is(err, zk.ErrClosing) {
				err = fmt.Errorf("%w: %w", zkrecipes.ErrClosed, err)
			}
			return &MaybeAppliedError{Path: q.path, Err: err}
		}
		return q.wrap("put", err) // the server refused it: not applied
	}
}

// waitRoom waits until the queue node has fewer children than max items
// (a missing node has none). The children count comes from the node's stat;
// the children are listed, with a watch, only while the queue is full.
func (q *core) waitRoom(ctx context.Context) error {
	for {
		ok, st, err := q.cl.Exists(ctx, q.path)
		if err != nil {
			return q.full2(ctx, err)
		}
		if !ok || int(st.NumChildren) < q.o.maxItems {
			return nil
		}
		kids, _, w, err := q.cl.ChildrenWatch(ctx, q.path)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil
		case err != nil:
			return q.full2(ctx, err)
		case len(kids) < q.o.maxItems:
			w.Stop()
			return nil
		}
		select {
		case <-w.Events():
		case <-ctx.Done():
			w.Stop()
			return q.full2(ctx, ctx.Err())
		case <-q.closeCtx.Done():
			w.Stop()
			return q.errClosed()
		}
	}
}

// full2 is the error of a bounded put that could not wait for room: ctx
// ended (wrapping ErrFull) or the wait failed.
func (q *core) full2(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("zkrecipes: %s %s: no room for a put (%d items or more): %w: %w", q.k, q.path, q.o.maxItems, ErrFull, ctx.Err())
	}
	return q.wrap("wait for room", err)
}
