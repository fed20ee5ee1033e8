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
// Suspended comes from the server's clock, not only from silence. The
// server expires a session T (the negotiated timeout, see SessionTimeout)
// after the last frame it received from the client; watch notifications can
// keep reaching a client that sends nothing, so "nothing received for 2/3 T"
// proves nothing about that. Every connection is therefore wrapped (beneath
// WithDialer's dialer) to note when the latest request or ping whose reply
// arrived was sent (A), and is dropped, making the client Suspended, once
// A + 2/3 T has passed, whatever was received meanwhile. The server received
// that request no earlier than A, so it cannot expire the session before
// A + T: Suspended, and with it every lock holder's Lost, comes at least T/3
// before the earliest expiry. This assumes the two clocks run at about the
// same rate over T and that this process is not paused for longer than that
// margin after its check; a pause can outlast any margin, which is what
// fencing tokens are for. Local expiry (Lost) follows T after Suspended.
//
// Server names are resolved at each dial, not once: a name that does not
// resolve (yet, or any more) is a failed dial, retried until Start's ctx
// ends, and after a local expiry until a new session comes or Close.
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
