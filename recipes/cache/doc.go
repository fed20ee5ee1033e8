// Package cache keeps a local view of a ZooKeeper node or subtree current by
// watches: Curator 5's CuratorCache for Go, with the Node, Children and Tree
// views of Curator's older NodeCache, PathChildrenCache and TreeCache chosen
// by options.
//
//	ch, _ := cache.New(c, "/services")           // no I/O: the whole subtree
//	events, cancel := ch.Events()                // subscribe before Start to see the load
//	ch.Start(ctx)                                // returns after the first full load; kept current
//	n, ok := ch.Get("/services/api")             // data and stat as last read
//	kids := ch.Children("/services")             // sorted by path
//	for ev := range events { ... }               // Created, Changed, Deleted, one Initialized
//	ch.Close(ctx)                                // removes its watch from the server
//
// Views: WithSingleNode caches the root alone, WithDepth(1) the root and its
// children, WithDepth(n) n levels; WithFilter leaves out nodes (and what is
// below them) by path; WithoutData keeps stats only.
//
// # Events
//
// Events come in order, none dropped and none twice: Created when a node
// enters the view (every node of the first load, then each new one), Changed
// when its data was written (its Mzxid moved; a node deleted and made again
// between two reads shows as Changed too), Deleted when it leaves, children
// before their parent, and Initialized once, after the first full load.
// A parent's Created comes before its children's. Replayed on an empty map,
// the events give the view. Each subscriber (each call of Events) has its own
// unbounded queue, so a slow one delays no other and loses nothing. Get,
// Children and Nodes are never older than the last event delivered: the view
// is updated before the event is queued.
//
// # Faults
//
// Changes made while the cache was disconnected arrive as the right events
// after a reconnect within the session; what is read again depends on the
// cache's watches (see Watches). With a watch per node, the client sets the
// watches again, the server fires those whose nodes changed meanwhile, and
// only those nodes are read again. With the persistent watch the server
// replays nothing, so the cache reads every node again (in batches, setting
// no watch) and lists only those whose child version moved. Either way only
// the differences become events. After a session loss every watch is gone:
// once a new session is up the cache reads its whole view again and emits
// only the differences. Reads that fail are tried again (at once on a
// reconnect); the view keeps its last content meanwhile.
//
// # Watches
//
// ZooKeeper 3.6 added persistent recursive watches (addWatch), one watch for
// a whole subtree, which Curator 5's CuratorCache uses. A cache of a whole
// subtree sets one on its root (client.AddWatch) before its first read; its
// reads set no watch and go out in batches, and Close removes the watch. A
// reconnect, within the session or not, replays nothing for it: the cache
// then reads every node again and lists those whose child version moved. A
// cache with WithDepth or WithSingleNode, WithWatchPerNode, or on a server
// without addWatch, sets what Curator's TreeCache sets: a data watch on
// every cached node and a child watch on every node whose children are
// cached (an existence watch on the root while it is missing). Notifications reach the cache through the
// client's one NodeEvents stream, so the cache runs no goroutine per watch.
// Those watches are one-shot: each notification is followed by a read that
// sets the next, and at most one read and one listing of a node are in
// flight at once.
//
// # Wire
//
// The cache only reads. What a Java CuratorCache, TreeCache or NodeCache on
// the same path sees and what this cache sees are the same nodes.
package cache
