package client

import (
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
)

// RequestHook is one request the client sent and its outcome.
type RequestHook struct {
	// Op is what the request asked: one of the Op constants.
	Op string
	// Duration is the time from the request's write to its reply (or to
	// the loss of its connection). A caller whose context ended first
	// returned earlier: the request's outcome is reported all the same.
	Duration time.Duration
	// Err is the request's error: the server's (zk.ErrNoNode, ...), or
	// the connection's (zk.ErrConnectionClosed: lost before the reply;
	// zk.ErrClosing: the client closed). nil when it succeeded. An exists
	// of a missing node is zk.ErrNoNode here (the server's answer).
	Err error
}

// The requests' names in RequestHook.Op: ZooKeeper's own names of its
// operations, the variants of one merged (create is every create: with a
// stat, a container, a TTL), a small fixed set fit for a metric label.
const (
	OpCreate        = "create"        // Create, CreateProtected (every kind of node)
	OpDelete        = "delete"        // Delete, the guaranteed delete
	OpExists        = "exists"        // Exists, ExistsW
	OpGetData       = "getData"       // Get, GetW
	OpSetData       = "setData"       // Set
	OpGetChildren   = "getChildren"   // Children, ChildrenW
	OpMulti         = "multi"         // Multi (one request, whatever its ops)
	OpSync          = "sync"          // Sync
	OpGetACL        = "getACL"        // GetACL
	OpSetACL        = "setACL"        // SetACL
	OpAddWatch      = "addWatch"      // persistent watches
	OpRemoveWatches = "removeWatches" // a persistent watch's removal
	OpOther         = "other"         // any other request
)

// The outcomes of a request (RequestHook.Label): a small fixed set, fit for
// a metric label. The first five are answers of the server, which recipes
// get as part of their work (a lock's exists on a predecessor just gone, a
// create that finds its node made); the others mean trouble.
const (
	RequestOK             = "ok"              // it succeeded
	RequestNoNode         = "no_node"         // zk.ErrNoNode
	RequestNodeExists     = "node_exists"     // zk.ErrNodeExists
	RequestBadVersion     = "bad_version"     // zk.ErrBadVersion
	RequestNotEmpty       = "not_empty"       // zk.ErrNotEmpty
	RequestNoAuth         = "no_auth"         // zk.ErrNoAuth, zk.ErrAuthFailed
	RequestConnectionLoss = "connection_loss" // the connection was lost before the reply
	RequestSessionExpired = "session_expired" // zk.ErrSessionExpired
	RequestClosed         = "closed"          // the client closed first
	RequestError          = "error"           // any other error
)

// Label names the request's outcome: RequestOK when Err is nil, else the
// class of Err among the Request constants (RequestError when none fits).
func (r RequestHook) Label() string {
	switch err := r.Err; {
	case err == nil:
		return RequestOK
	case errors.Is(err, zk.ErrNoNode):
		return RequestNoNode
	case errors.Is(err, zk.ErrNodeExists):
		return RequestNodeExists
	case errors.Is(err, zk.ErrBadVersion):
		return RequestBadVersion
	case errors.Is(err, zk.ErrNotEmpty):
		return RequestNotEmpty
	case errors.Is(err, zk.ErrNoAuth), errors.Is(err, zk.ErrAuthFailed):
		return RequestNoAuth
	case errors.Is(err, zk.ErrConnectionClosed):
		return RequestConnectionLoss
	case errors.Is(err, zk.ErrSessionExpired):
		return RequestSessionExpired
	case errors.Is(err, zk.ErrClosing):
		return RequestClosed
	}
	return RequestError
}

// requests is the connection's request callback that reports to
// h.Request, or nil without one (a request then costs the connection one
// nil check). It allocates nothing.
func (h *Hooks) requests() func(op int32, took time.Duration, err error) {
	if h == nil || h.Request == nil {
		return nil
	}
	report := h.Request
	return func(op int32, took time.Duration, err error) {
		if name := wire.OpName(op); name != "" {
			report(RequestHook{Op: name, Duration: took, Err: err})
		}
	}
}
