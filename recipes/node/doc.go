// Package node keeps one node in ZooKeeper for as long as a process wants
// it there: the Go counterpart of Apache Curator's PersistentNode (and,
// with WithTTL, PersistentTtlNode). The node is usually ephemeral: a
// service's registration, a group member, a lock-free "I am alive" mark.
//
//	n, _ := node.New(c, "/services/api/instance-1", payload) // no I/O
//	n.Start(ctx)                                             // returns once it is made; kept in the background
//	n.SetData(ctx, newPayload)                               // written through, and kept for re-creates
//	n.Close(ctx)                                             // stops, deletes it (guaranteed)
//
// # Kept through faults
//
// A goroutine of the handle's own does all its I/O: it creates the node as
// soon as the client has a session, leaves a watch on it, and looks again
// after every watch event, every (re)connect and every SetData. So the node
// is made again, with the latest data:
//
//   - after a session loss (an ephemeral node went with its session): in
//     the new session, at once. When the client gave its session up before
//     the server expired it, the old session's node may still be there: the
//     handle deletes it (guaranteed) before making the new one;
//   - after someone deletes it (the watch fires);
//   - after a server restart, or a move to another server of the ensemble.
//
// A reconnect to the same session finds the node still there and makes no
// second one. Data given to SetData while disconnected is written once the
// connection is back (or by the re-create); a reconnect writes nothing
// otherwise (Curator writes the data again at every reconnect).
//
// # Names
//
// Without WithProtection the node is made at the path given, and made
// again there. A plain create whose reply was lost is retried and finds
// the node (zk.ErrNodeExists): the handle takes it as its own when it is
// an ephemeral node of its live session, so no second node is made.
//
// With WithProtection every create is client.CreateProtected: the name is
// "_c_" + a UUID + "-" + the path's last segment, and a create whose reply
// was lost is found again by its UUID instead of being made twice. Each
// create has a new UUID, so the path changes when the node is made again:
// Path follows, and Events tells. A sequential mode needs protection
// (New refuses it without): an unprotected sequential create whose reply is
// lost cannot be found again and would leave a second node. As in Curator,
// a sequential node is made again under the sequence number it got first,
// with a new UUID: "_c_<new uuid>-member-0000000007".
//
// # A node that is already there
//
// The handle decides as Curator's PersistentNode does. A node found at the
// path that the handle did not make, another process's ephemeral node or a
// persistent node from before, is taken over (Adopted): the handle writes
// its data there and watches it, Start returns, and once that
// node is deleted (its owner's session ends, say) the handle makes its own.
// Close deletes an adopted node too. A node of another mode than the one
// asked for is taken over all the same, with a warning in the log. A node
// of this client's own earlier session is not adopted but replaced (see
// above).
//
// # Close
//
// Close stops the handle and deletes the node with the client's guaranteed
// delete (client.DeleteGuaranteed, bound to the session that owns an
// ephemeral node): when the delete cannot finish now it goes on in the
// background, on every reconnect, while that session lives. So does every
// node the handle gives up (an old session's node). A create under way when
// Close is called is awaited while the connection lasts (a protected one
// cleans up after itself), so that no node is made after Close deleted;
// once the connection is lost, the node it may have made is deleted
// (guaranteed) at its path. Close never waits for a reconnect: without a
// connection it returns within about a second, nil when the node went
// with its lost session, else zkrecipes.ErrDeletePending.
//
// # TTL nodes
//
// WithTTL makes a persistent TTL node that the server deletes once it has
// no children and no data write for the TTL. The handle keeps it alive
// with Curator's touch child (see WithTTL), so the node outlives its
// handle by about the TTL: a crashed or partitioned process's node goes by
// itself, and comes back once the handle can reach the server again.
// Unlike Curator's PersistentTtlNode, whose close leaves the node to expire,
// Close deletes it (the touch child first) as for every other mode.
//
// # Errors
//
// New validates everything before any I/O: a *client.PathError for a bad
// path, zkrecipes.ErrInvalidArgument for a nil client, a nil option, an unknown mode,
// a TTL out of range or with an ephemeral mode, a sequential mode without
// protection. A create or write the server refuses for good (no permission,
// TTL nodes disabled) is returned by Start and SetData; the handle keeps
// trying. After Close, Start and SetData return an error wrapping
// zkrecipes.ErrClosed.
package node
