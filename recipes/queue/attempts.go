package queue

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/internal/pubsub"
)

// A lock-safe item's failed attempts (Requeue mode). An attempt fails when
// a handler of the node returns an error, or when the node's removal is
// refused because of an op a handler gave CommitWith. The consumer then
// keeps the item's lock for a backoff that doubles with each failure of the
// node, and requeues it; after the last attempt (WithMaxAttempts) it moves
// the node to the dead-letter path, or deletes it.
//
// The count travels with the node: a requeued node's data carries it after
// the end marker of Curator's format, where Curator's reader, and
// decodeItems, stop. So every Go consumer of the queue, in any process,
// counts an item's failures from where the last one left off; a Java
// consumer reads the node as ever, and its own requeue (which writes the
// items anew) starts the count again.

// attemptsMark opens the count after the end marker: "zkra", then the count
// as a big-endian uint32.
const (
	attemptsMark = 0x7a6b7261
	attemptsSize = 8
)

// attemptsOf is the count of failed attempts data carries (0 for none, or
// for data not in Curator's format).
func attemptsOf(data []byte) int {
	items, err := decodeItems(data)
	if err != nil {
		return 0
	}
	end := overhead(len(items))
	for _, it := range items {
		end += len(it)
	}
	rest := data[end:]
	if len(rest) < attemptsSize || binary.BigEndian.Uint32(rest) != attemptsMark {
		return 0
	}
	return int(min(binary.BigEndian.Uint32(rest[4:]), math.MaxInt32))
}

// withAttempts is data (in Curator's format, no count) followed by the
// count n, when n is positive.
func withAttempts(data []byte, n int) []byte {
	if n <= 0 {
		return data
	}
	data = binary.BigEndian.AppendUint32(data, attemptsMark)
	return binary.BigEndian.AppendUint32(data, uint32(min(n, math.MaxInt32)))
}

// givesUp reports whether an item whose n-th attempt failed is given up.
func (q *core) givesUp(n int) bool { return q.o.maxAttempts > 0 && n >= q.o.maxAttempts }

// backoff is how long the consumer keeps an item after its n-th failed
// attempt before requeueing it: the first backoff, doubled for each
// failure before, up to the max.
func (q *core) backoff(n int) time.Duration {
	d := q.o.backoffFirst
	for i := 1; i < n && d < q.o.backoffMax; i++ {
		d *= 2
	}
	return min(d, q.o.backoffMax)
}

// attemptFailed counts a failed attempt at t's node and returns its number
// (the failures the node carries, and this one). Unless the node is given
// up, it logs the failure at Warn and waits the backoff, holding the
// item's lock: until ctx ends (Close, or the end of the ctx of Consume) or
// the lock's session does. cause names the failing op when it is a
// handler's commit (a *client.OpError), and the log line names it too.
func (q *core) attemptFailed(ctx context.Context, t *taken, cause error) int {
	n := attemptsOf(t.data) + 1
	attrs := []any{"node", t.e.name, "attempt", n}
	if q.o.maxAttempts > 0 {
		attrs = append(attrs, "max_attempts", q.o.maxAttempts)
	}
	var oe *client.OpError
	if errors.As(cause, &oe) {
		attrs = append(attrs, "op", oe.Index, "op_path", oe.Path)
	}
	if q.givesUp(n) {
		to := "deleted"
		if q.deadFull != "" {
			to = "moved to " + q.o.deadLetter
		}
		q.log.Warn("zkrecipes: "+q.k.String()+" item failed its last attempt: "+to, append(attrs, "err", cause)...)
		return n
	}
	d := q.backoff(n)
	q.log.Warn("zkrecipes: "+q.k.String()+" item failed: requeued after a backoff", append(attrs, "retry_in", d, "err", cause)...)
	sleepHeld(ctx, t, d)
	return n
}

// sleepHeld waits d, holding t's lock, or until ctx ends or the lock's
// session does.
func sleepHeld(ctx context.Context, t *taken, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	case <-t.sess.Done():
	}
}

// afterFailure is the transaction that ends t after its n-th failed
// attempt, with the event it makes: rest back at the tail, marked with n;
// or, given up, rest moved to the dead-letter path, or deleted. u are the
// ops of the node's items processed before the failure: they commit with
// it.
func (q *core) afterFailure(t *taken, rest [][]byte, u userOps, n int, cause error) (tx, Event) {
	if !q.givesUp(n) {
		return q.requeueOps(t, rest, u, n), Event{Type: Requeued, Node: t.e.name, Err: cause}
	}
	err := fmt.Errorf("%w (%d attempts): %w", ErrMaxAttempts, n, cause)
	if q.deadFull == "" {
		return q.removeOps(t, u), Event{Type: Dropped, Node: t.e.name, Err: err}
	}
	return q.deadLetterOps(t, rest, u), Event{Type: DeadLettered, Node: t.e.name, Err: err}
}

// deadLetterOps is the transaction that removes t's node and lock and
// creates rest under the dead-letter path, named as a requeue would be
// (so with its id, priority or due time), in Curator's format without a
// count of attempts, with u.
func (q *core) deadLetterOps(t *taken, rest [][]byte, u userOps) tx {
	ops := append(q.removeOps(t, userOps{}).ops, &zk.CreateRequest{
		Path: q.deadFull + "/" + q.k.requeuePrefix(t.e.name), Data: encodeItems(rest), Flags: zk.FlagSequence,
	})
	return tx{ops: append(ops, u.ops...), fixed: 3, u: u, rest: rest, dead: true}
}

// makeDeadLetter makes the dead-letter path, as containers, for as long as
// t's lock session lives.
func (q *core) makeDeadLetter(t *taken) error {
	ctx, cancel := pubsub.CancelOnClose(context.Background(), t.sess.Done())
	defer cancel()
	err := q.cl.EnsureContainers(ctx, q.o.deadLetter)
	if err != nil {
		q.log.Warn("zkrecipes: queue dead-letter path", "dead_letter", q.o.deadLetter, "err", err)
	}
	return err
}

// deadName is the dead letter's node, relative to the namespace, from a
// dead-letter transaction's results ("" without them).
func (q *core) deadName(res []zk.MultiResponse) string {
	if len(res) < 3 || res[2].String == "" {
		return ""
	}
	return q.o.deadLetter + "/" + path.Base(res[2].String)
}
