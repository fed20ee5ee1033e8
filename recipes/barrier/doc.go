// Package barrier holds Curator's two barriers for Go, wire compatible with
// Curator 5: Go and Java processes may share one barrier.
//
// # Barrier: a gate
//
// Barrier is Curator's DistributedBarrier: a gate that is closed while its
// node exists.
//
//	b, _ := barrier.New(c, "/deploy/gate") // no I/O
//	b.Set(ctx)                             // close the gate: the node is made
//	b.Wait(ctx)                            // elsewhere: blocks while the node exists
//	b.Remove(ctx)                          // open it: every Wait returns
//
// Wait rides out disconnections and session loss (the barrier node belongs
// to no session) and returns only when the node is gone, ctx ends or the
// handle is closed. Curator's waitOnBarrier fails on any connection loss
// instead. Wait syncs its server first, so a Wait that starts after a Set
// returned, on any server, waits.
//
// # Double: enter together, leave together
//
// Double is Curator's DistributedDoubleBarrier, the double barrier of the
// ZooKeeper recipes: n members enter (Enter returns once n are in), do
// their work, and leave (Leave returns once all have left).
//
//	d, _ := barrier.NewDouble(c, "/jobs/step", 3) // no I/O; opens at 3 members
//	d.Enter(ctx)                                  // waits until 3 are in
//	work(d.Round())                               // the opening's id, shared by its members
//	d.Leave(ctx)                                  // waits until all have left
//	d.Close(ctx)                                  // leaves at once if still in
//
// The layout is Curator's: each member is an EPHEMERAL node named by a
// random UUID under the barrier's path (a container, made on demand), and
// the barrier opens when a member that counts n children creates the
// PERSISTENT node "ready" there. Every waiting member watches only the
// ready node, so arrivals wake nobody and the opening wakes each waiter
// once. Leaving follows Curator's order by node name: the lowest member
// keeps its node until it is alone, watching the highest; every other one
// deletes its node and watches the lowest. The last one out deletes the
// ready node.
//
// # Where this differs from Curator, and why
//
// Curator's double barrier has known bugs; this one keeps its wire but not
// those:
//
//   - A wakeup is never taken for an opening (GH-1290: a timed enter
//     returned true after any notification, a reconnect included, with
//     fewer than n members in). Enter passes only on a ready node created
//     while its own node existed, or by the rules below for a ready node
//     older than that.
//   - A member that gives up leaves nothing behind (CURATOR-80, CURATOR-318:
//     a timed-out enter kept its node, so a later arrival counted it and
//     passed alone). When Enter's ctx ends the member withdraws, and
//     atomically: an opening by a Go member checks, in one transaction, that
//     every member it counted still exists, and raises the version of the
//     barrier node's data; a withdrawal deletes the member's node in one
//     transaction with a check of that version. So a member either
//     withdraws before anyone counted it into an opening, or Enter returns
//     nil because the barrier opened with it. (A Java member's opening does
//     neither: it may count a Go member in the instant that member
//     withdraws.) A Leave whose ctx ends deletes the node too.
//   - Disconnections are ridden out (Curator threw ConnectionLoss on any
//     disconnection, leaving its node: CURATOR-330). A lost session ends
//     Enter with zkrecipes.ErrLost; a member whose node was gone before Leave gets
//     zkrecipes.ErrLost from Leave, after the others have gone.
//   - One path serves round after round. Every Enter makes a node with a
//     fresh name (Curator reuses one name per object), and Leave waits only
//     for the members that were in when it began: with Curator, a member
//     still leaving round k that saw round k+1's nodes waited for them to
//     leave, while they waited for it to enter. A ready node whose round is
//     over but that was not deleted (its last member was lost) is deleted
//     by the next arrival instead of letting it pass alone. A member never
//     passes the same opening twice: entering again while the ready node it
//     passed is still there, it waits for that node to go before it makes
//     its own (so the members still leaving do not wait for it).
//
// What stays as in Curator: n is a threshold, not a limit (a member that
// arrives while the ready node exists and a member of that opening is still
// in passes at once); and a member that arrives while a round is leaving
// meets that round's tail: it may find its ready node and pass with its
// last members, or count those still leaving towards the next opening.
// Members that take part in every round (as in the chaos suite's workload)
// never meet that case; others can use a path per round.
//
// # Errors
//
// Bad input is refused before any I/O with a typed error: a nil client or
// option, or n below 1 (zkrecipes.ErrInvalidArgument), a bad path or the root
// (zkrecipes.ErrInvalidPath, a *client.PathError). Enter on a member that is in
// (ErrEntered), Leave on one that is not (ErrNotEntered) and every call
// after Close (zkrecipes.ErrClosed) leave nothing on the server.
package barrier
