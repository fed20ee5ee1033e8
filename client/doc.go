// Package client is zkrecipes' ZooKeeper session manager, built on
// github.com/go-zookeeper/zk.
//
// A Client is made with New (no I/O) and connected with Start. It tells its
// users, in order and without ever dropping one, the four connection states
// Apache Curator uses:
//
//	Connected    the first session is established
//	Suspended    the connection is lost; the session may still be alive
//	Reconnected  connected again: to the same session, or to a new one after Lost
//	Lost         the session is gone (expired by the server, or given up locally)
//
// A client that stays Suspended for a whole session timeout publishes Lost by
// itself, as Curator does, because a partitioned process can hear from no
// server that its session expired; it then opens a fresh connection, so the
// session it declared lost can never come back to life.
//
// Each ZooKeeper session is a *Session (an epoch) whose Done channel closes
// the moment it is Lost or the client closes. Recipes bind their ephemeral
// nodes to a Session, so a lock holder learns when its lock may be gone.
//
// Operations take context first, validate their path before any I/O (a
// *PathError wrapping ErrInvalidPath), put it under the client's namespace and
// run under a retry policy from package retry. CreateProtected is Curator's
// protected create: the node's name carries a UUID so that a create whose
// reply was lost is found again rather than made twice. Missing parents are
// made as container nodes, which the server removes once they are empty.
package client
