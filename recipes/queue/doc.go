// Package queue is Apache Curator's distributed queues on ZooKeeper:
// DistributedQueue (Queue), DistributedIdQueue (IDQueue),
// DistributedPriorityQueue (PriorityQueue), DistributedDelayQueue
// (DelayQueue) and SimpleDistributedQueue (Simple), on Curator's znode
// layout and item format, so that Go and Java producers and consumers
// share one queue.
//
// # The layout
//
// An item is a PERSISTENT_SEQUENTIAL node under the queue's path; its name
// carries what Curator's queues sort by (see names.go): "queue-<seq>",
// "queue-<priority>...", "queue-|<due>|...", "queue-|<id>|...", or "qn-<seq>"
// for Simple. Its data is Curator's ItemSerializer format (a version, then
// each item's length and bytes: PutMulti puts several in one node), except
// Simple's, which is the raw bytes. The queue's node is a container, made
// by the first put and reaped by the server once emptied. A child whose
// name lacks the prefix is foreign: skipped, and told once (a Foreign
// event), as Curator logs it.
//
// # Consuming: a handler, not a channel
//
// Consume(ctx, h) calls h(ctx, item) for each item, one at a time; call it
// from several goroutines to process several at once. A handler rather
// than a channel, because a lock-safe item is removed only once its
// processing succeeded: the consumer must learn when the work is done and
// whether it failed, which a handler's return says and a channel's receive
// does not (a received item would need an Ack, and one a reader dropped
// would keep its lock for the session's life). The handler's ctx carries
// the item's loss: it ends when the lock may be gone. Consume blocks, as
// http.Serve does, until its ctx ends or Close.
//
// # Lock safety and exactly once
//
// Without a lock path (Curator's default) a consumer reads an item and
// deletes it before its handler runs: an item is handed over at most once,
// and lost if the consumer dies in its handler. A removal whose reply is
// lost is judged by looking: still there, the item is removed again; gone,
// it is not handed over (a MaybeLost event).
//
// WithLockPath is Curator's lock-safe mode: to take an item, a consumer
// creates the ephemeral node lockPath/<item's name> (another consumer,
// Java or Go, that finds it there skips the item), reads the item, runs
// the handler, and then removes the item and the lock in one transaction.
// That transaction is sent only on a connection of the session that made
// the lock: ZooKeeper refuses a request of a session it has expired, so a
// removal that went through was made while the lock was still this
// consumer's, and no other consumer can have taken the item meanwhile. A
// transaction whose reply was lost is judged by the lock node: still there
// in the same session, the removal was not made and is sent again; gone,
// it was. Once the session has ended, the removal may or may not have been
// made: a CommitLost event, and the item goes to another consumer if it is
// still there. So an item's removal commits exactly once, and
// Item.CommitWith makes what a handler records in ZooKeeper commit with it:
// exactly once per item, whatever consumers die, links fail or sessions
// expire. A handler itself may run more than once for an item (its
// consumer lost its lock before it could commit); Item.Token, the lock
// node's czxid, lets an outside resource refuse the stale one.
//
// A failed handler's item is requeued at the tail (Requeue, Curator's
// default ErrorMode), keeping its id, priority or due time (Curator keeps
// the id only) and never growing its name (CURATOR-56), or removed
// (Delete). A node from PutMulti whose handler failed on its k-th item is
// requeued with the items from k on: those before were processed and are
// not handed over again (Curator requeues the whole node).
//
// # Failed attempts: backoff and dead letters
//
// On a lock-safe queue in Requeue mode, an attempt at an item fails when
// its handler returns an error, or when its removal is refused because of
// an op the handler gave Item.CommitWith (a create under a missing parent,
// a lock's owner check made after its Unlock): the Requeued event's error
// is then a *client.OpError naming that op by its index among the ops
// given to CommitWith for the node (from 0) and its path as given.
// Curator requeues a failed item at once, for ever, so a commit that can
// never succeed spins, a transaction a turn. Here the consumer keeps the
// item's lock for a backoff before it requeues it, so that no consumer,
// Java or Go, takes it meanwhile: DefaultRequeueBackoff (100 ms) after the
// item's first failure, doubled at each further one up to
// DefaultMaxRequeueBackoff (5 s) (WithRequeueBackoff). Each failure is
// logged at Warn with the item's node, the attempt's number and, for a
// refused commit, the op's index and path. Close, or the end of the ctx
// of Consume, cuts a backoff short: the item is requeued at once.
//
// The count travels with the item: a requeued node carries it after the
// end marker of Curator's format, where Curator's reader stops (Java
// consumers read the node as ever; a Java consumer's requeue starts the
// count again), and every Go consumer, in any process, goes on from it
// (Item.Attempts). By default a failed item is requeued for ever, as
// Curator does. WithMaxAttempts(n) gives it up after its n-th failed
// attempt: deleted (a Dropped event), or, with WithDeadLetterPath, moved
// under the dead-letter path in one transaction with its removal (a
// DeadLettered event; DefaultMaxAttempts, 5, when only the path is
// given). A dead-letter path holds its items as a queue of the same kind
// would (their names' prefixes, Curator's format), so a queue handle on it
// reads, retries or empties them. A handler stopped because its ctx ended
// has not failed: its item is released, or requeued, at once, its count
// unchanged.
//
// # Puts
//
// Put returns once the item is in the queue (Curator's putInBackground
// false). WithMaxItems bounds the queue (Curator's maxItems): a put waits
// while the queue's node has that many children, reading the count from
// the node's stat and listing only while it is full; like Curator's, the
// bound is approximate (P producers may overshoot it by P-1). A create is
// sent once: if its reply is lost the put returns a *MaybeAppliedError
// (the item may be in the queue), never a second create that could queue
// it twice (Curator's client retries it). A request larger than the
// server's jute.maxbuffer (1 MiB by default: WithMaxBuffer) makes
// ZooKeeper drop the connection; such a put fails with a *TooLargeError
// before anything is sent.
//
// # One watcher, not a herd
//
// Curator's consumers all watch the queue's children and list it again on
// every change, each put and each removal. Here a consumer with work lists
// the queue once and works through the listing without a watch, taking
// first the items whose sequence number is its rank modulo the number of
// consumers (so that consumers working through one listing do not all try
// the same items), and lists again only once the listing is used up (the
// priority queue: after WithMinItemsBeforeRefresh items). A consumer that
// finds nothing to take queues on the idle line, a recipes/mutex lock at
// consumerPath/idle: only the idle consumer holding it watches the queue.
// A put wakes that one consumer; it takes the item and leaves the line, and
// the next idle consumer watches in its place. When every item is held by
// another consumer's lock, the watcher also watches the first one's lock
// node, so an item whose consumer died (its lock went with its session) is
// taken at once, not at the next put (Curator waits for one). Each running
// Consume also keeps an ephemeral node under consumerPath/members (zkr
// queue lists them) from which it learns its rank.
//
// # Where ZooKeeper is a poor queue
//
// Curator's own documentation warns against ZooKeeper for queues, and the
// reasons hold here: every item is a node on every server, in memory, and
// written to every server's log; a listing returns every item's name in
// one reply, which must fit jute.maxbuffer on the client too (about 50,000
// items of a plain queue; fewer with ids), and costs in proportion to the
// queue's length; an item's data must fit the same limit. Keep queues
// short, items small, and use a message broker for volume. The repository's
// docs/benchmarks.md measures it.
package queue
