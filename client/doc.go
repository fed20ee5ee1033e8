// Package client is zkrecipes' ZooKeeper session manager, built on its own
// connection layer (the jute codec and connection loop of
// client/internal/wire). It speaks github.com/go-zookeeper/zk's types:
// zk.Stat, zk.ACL, its error values, create flags and event types.
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
// Suspended is timed by the server's clock. The server expires a session T
// (the negotiated timeout: SessionTimeout) after the last frame it received
// from the client, and watch notifications may keep arriving while the
// client sends nothing. So every connection is wrapped (beneath WithDialer's
// dialer) to note A, when the latest request or ping whose reply arrived was
// sent, and is dropped, making the client Suspended (a holder's Lost closes
// then, unless it waits for session loss), once A + 2/3 T has passed,
// whatever else arrived. The server got that request no earlier than A, so
// it cannot expire the session before A + T: Lost comes at least T/3 first.
// This assumes clocks that run at about the same rate and no pause of this
// process longer than that margin (which is what fencing tokens are for). Server names are resolved at each dial: a
// name that does not resolve is a failed dial, retried until Start's ctx ends
// or, after a local expiry, until a new session comes or Close.
//
// Each ZooKeeper session is a *Session (an epoch) whose Done channel closes
// the moment it is Lost or the client closes. Recipes bind their ephemeral
// nodes to a Session, so a lock holder learns when its lock may be gone.
//
// Operations take context first, validate their path before any I/O (a
// *PathError wrapping zkrecipes.ErrInvalidPath), put it under the client's namespace and
// run under a retry policy from package retry. CreateProtected is Curator's
// protected create: the node's name carries a UUID so that a create whose
// reply was lost is found again rather than made twice. Missing parents are
// made as container nodes, which the server removes once they are empty.
//
// DeleteGuaranteed is Curator's guaranteed delete: a delete that cannot
// finish within its ctx, or within a second without a connection, is
// remembered and tried again on every reconnect of the node's session, until
// it succeeds or that session ends (the server then removed the node; a node
// whose session has ended already is no error). Its bound is the session's
// life, never the retry policy; PendingDeletes counts those still going.
// Every node the recipes give up is deleted this way.
//
// WithTLS makes every connection a TLS one (over WithDialer's dialer), to
// ZooKeeper's secureClientPort; a handshake that fails is a *TLSError, and
// Start returns one at once when no server can be reached for a reason that
// will not pass (see Start). Every node the client creates, the recipes'
// included, takes the client's ACL (WithACL, or per path WithACLProvider);
// an operation the ACLs refuse returns an *ACLError at once
// (errors.Is(err, ErrNoAuth)): it is never retried.
package client
