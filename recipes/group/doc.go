// Package group is group membership on ZooKeeper: Curator's GroupMember for
// Go. Each member keeps an ephemeral node named by its id under the group's
// path (a recipes/node handle: made again after a session loss or a delete,
// with its latest data) and watches the group with a recipes/cache of depth
// one, so it always has the live map of members.
//
//	m, _ := group.New(c, "/groups/workers", "worker-7", []byte("10.0.0.7:8080")) // no I/O
//	m.Start(ctx)                   // returns once its node is made and the members are loaded
//	members := m.Members()         // id -> data, this member included
//	for ev := range events { ... } // Joined, Updated, Left (events from m.Events())
//	m.SetData(ctx, []byte("busy")) // written through and kept for re-creates
//	m.Close(ctx)                   // leaves: the node is deleted (guaranteed)
//
// The layout is Curator's: the member's node is <path>/<id>, ephemeral, with
// the member's data, so Go and Java members of one group see each other. As
// in Curator, Members always holds this member (with its latest data), even
// while its node is being made again, until Close (then it is empty), and
// two members that share an id share one node (the second takes the
// first's over). The group is loaded once the member's node exists, so the
// member's own Joined event comes before Loaded.
package group
