// Package election is leader election on ZooKeeper: the Go counterpart of
// Apache Curator's LeaderLatch (Latch) and LeaderSelector (Run), wire
// compatible with both, so Go and Java participants can share one path.
//
// # Two ways to take part
//
// A Latch is a participant that stays in the election until it is closed:
//
//	l, err := election.NewLatch(c, "/jobs/leader", election.WithID("node-a"))
//	err = l.Start(ctx)           // creates its node, then campaigns in the background
//	t, err := l.Await(ctx)       // this participant leads: t is the term
//	<-t.Done()                   // leadership may be gone (context.Cause: why)
//	err = l.Close(ctx)           // ends the term first, then deletes the node
//
// Its node is a protected EPHEMERAL_SEQUENTIAL "_c_<uuid>-latch-<seq>" whose
// data is the participant id (empty by default, as in Curator).
//
// Run is a leader loop, for work that is done while leading:
//
//	err := election.Run(ctx, c, "/jobs/leader", func(ctx context.Context, t *election.Term) error {
//		return work(ctx, t.Token()) // ctx is cancelled the moment leadership may be gone
//	}, election.WithID("node-a"))
//
// Its nodes are Curator's LeaderSelector's: the mutex's "_c_<uuid>-lock-<seq>"
// with the participant id as data. The node is deleted only after lead has
// returned, so no two terms on a path overlap in time while their lead
// functions run, and never two terms of one Run. Run campaigns again after
// each term (WithRunOnce: once).
//
// The first node in sequence order leads; every other participant watches
// the node just before its own (the queue core of package mutex: a change
// of leader wakes one or two participants, never a herd).
//
// # Terms
//
// A Term is one span of leadership. It starts only after the participant
// has read its own node (while it waited, so the read is not on the
// failover's critical path) and found that the node's ephemeralOwner is
// its live session, on a listing taken after its latest reconnect (a node left by
// an expired session never makes anyone leader: Curator's CURATOR-696). Its
// Token is the node's creation zxid, which grows strictly from one leader's
// node to the next: give it to the resource the leader writes to, which can
// then refuse a deposed leader's late write.
//
// A term's context is cancelled the moment leadership may be gone: by
// default when the connection is Suspended. The client suspends at the
// latest two thirds of the negotiated session timeout after the last
// request the server answered was sent, and the server cannot expire the
// session, and so let another participant lead, before a whole timeout
// after it received that request (package client and package mutex state
// the assumptions). With WithLostOnSessionLossOnly it is cancelled only
// when the session is lost: fewer false alarms, but another participant
// may lead by then. It is also cancelled when the node is deleted under the
// leader, on Close, on Term.Interrupt, and (Run) when lead returns.
//
// A suspension that ends in a reconnect of the same session does not cost
// the latch its node: it is neither deleted nor made again (Curator's
// CURATOR-644/645 livelock), and once the latch has read it again, still
// its session's and still first, a new term starts on the same node with
// the same token. A lost session ends the term; the latch gives the old
// node up (guaranteed delete) and queues again with a new one.
//
// # Listeners and CloseMode
//
// Besides Await and Terms, a Latch can tell listeners (WithListener) of
// each term: isLeader as it starts, notLeader once its context is
// cancelled, one call at a time, in order, on a goroutine of the latch's
// own. WithCloseMode is Curator's CloseMode: under CloseSilent (the
// default) Close makes no notLeader call for the term it ends, under
// CloseNotifyLeader it does. The mode changes that call only: Close always
// cancels the term's context first, so a leader's work that follows its
// context stops in either mode (in Curator, work that a listener stops in
// notLeader goes on after a silent close).
//
// # Watching an election
//
// Leader and Participants read an election's path (a Latch's or a Run's);
// Leader returns ErrNoLeader when nobody takes part. Observe follows the
// leader: every change in order, "no leader" included, on a channel that
// keeps only the latest observation for a slow reader.
//
// # Proclaiming
//
// A leader publishes a value (its address, its epoch) without a new
// election with Term.Proclaim, as etcd's Election.Proclaim does: Leader,
// Participants and Observe report it as the leader's Participant.Value,
// each value once and in order, only while that node leads. A deposed
// leader's Proclaim fails (ErrNotLeader): the value is written in one
// transaction with a check that the leader's node still exists. It lives in
// the election node's data, not the leader's node, so Curator's
// participants, which read the ids from the nodes, see what they always
// did (Term.Proclaim says why).
package election
