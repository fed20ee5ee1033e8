package client

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
	"github.com/google/uuid"
)

// ProtectedPrefix starts every protected node name, as in Curator.
const ProtectedPrefix = "_c_"

// ProtectedNode is a node made by CreateProtected.
type ProtectedNode struct {
	// Path is the node's path, relative to the namespace.
	Path string
	// Session is the session the node was created in: for an ephemeral node,
	// the node lives at most as long as it does.
	Session *Session
	// Stat is the node's stat as created, when the server told it (a
	// ReplaceProtected's transaction on ZooKeeper 3.9+, whose multi returns
	// create2 results); nil otherwise.
	Stat *zk.Stat
}

// CreateProtected creates a node under path's parent named, as Curator names
// it, "_c_" + a fresh UUID + "-" + path's last segment (plus ZooKeeper's
// sequence number when flags include zk.FlagSequence). Missing parents are
// always made as containers (WithParents changes nothing); WithTTL makes a
// TTL node (see Create for its flags). Bad flags or options are an error
// wrapping zkrecipes.ErrInvalidArgument, before any I/O. It returns the
// node's path with the session it was created in, which a guaranteed
// delete needs and which a plain path cannot carry: hence a method of its
// own rather than an option of Create.
//
// When a create's outcome is unknown (the connection was lost after the
// request was sent), it lists the parent and looks for its own UUID: a node
// found there of the current session is returned instead of creating a
// second one; a node found of an earlier session is deleted and a fresh one
// created. So exactly one node is left, and it is the one returned.
//
// When ctx ends while a create is in flight, CreateProtected returns ctx's
// error without waiting for the create's answer. Once the create's requests
// have ended (answered, or failed with the connection), the client searches
// for the node by its UUID and deletes it, as it does after any failed call
// whose create may have succeeded unseen, retrying in the background while
// the connection is down (see DeleteGuaranteed). CreateProtected waits for
// that cleanup only briefly (under 2 s) past the end of ctx.
func (c *Client) CreateProtected(ctx context.Context, path string, data []byte, flags int32, opts ...CreateOption) (ProtectedNode, error) {
	o, err := createOpts(opts)
	if err != nil {
		return ProtectedNode{}, err
	}
	if o.ttl > 0 {
		if _, err := c.absTTL(path, flags, o.ttl); err != nil {
			return ProtectedNode{}, err
		}
	}
	out, err := c.createProtected(ctx, path, data, flags, protectedOpts{ttl: o.ttl})
	return out.node, err
}

// createProtectedList is CreateProtected (without options) that also lists
// the node's parent right behind the create, in the same write (see
// wire.Conn.CreateThenChildren): kids are the parent's children as the
// server saw them just after the create, when listed. A create that took
// another path (a parent was missing, an earlier attempt's outcome was
// unknown) or a listing that failed leaves listed false: the caller lists.
func (c *Client) createProtectedList(ctx context.Context, path string, data []byte, flags int32) (_ ProtectedNode, kids []string, listed bool, _ error) {
	out, err := c.createProtected(ctx, path, data, flags, protectedOpts{list: true})
	return out.node, out.kids, out.listed, err
}

// protectedOpts are createProtected's variants: a TTL node when ttl > 0
// (the caller validated flags and ttl); when replace (an absolute path) is
// set, that node is deleted in the same transaction as the create (see
// ReplaceProtected); list lists the parent behind the create.
type protectedOpts struct {
	ttl     time.Duration
	replace string
	list    bool
}

// protectedOut is what createProtected made: the node; replaced reports
// that a transaction that also deleted opts.replace committed (when false,
// replace may still exist); kids, when listed, the parent's children
// right after the create.
type protectedOut struct {
	node     ProtectedNode
	replaced bool
	kids     []string
	listed   bool
}

// createProtected is CreateProtected with the variants of opts.
func (c *Client) createProtected(ctx context.Context, path string, data []byte, flags int32, opts protectedOpts) (protectedOut, error) {
	full, err := c.abs(path)
	if err != nil {
		return protectedOut{}, err
	}
	// Judge the path as given, not its namespaced form: under a namespace,
	// "/" becomes the namespace root, whose parent lies outside the
	// namespace, and the node would be created there.
	if path == "/" {
		return protectedOut{}, &PathError{Path: path, Reason: "a protected node needs a parent and a name"}
	}
	parent := parentOf(full)
	name := full[len(parent):]
	name = strings.TrimPrefix(name, "/")
	tag := ProtectedPrefix + uuid.NewString() + "-"
	target := joinPath(parent, tag+name)
	ephemeral := flags == zk.FlagEphemeral || flags == zk.FlagEphemeralSequential

	data = detach(ctx, data)

	var out protectedOut
	maybeCreated := false
	var cleaned chan struct{} // closed once an abandoned attempt's cleanup has run
	err = c.Do(ctx, func(ctx context.Context) error {
		sess, err := c.WaitSession(ctx)
		if err != nil {
			return err
		}
		conn, _, err := c.connUp(ctx)
		if err != nil {
			return err
		}
		if c.Session() != sess {
			// Conn waited through a reconnect into another session: the
			// step must be judged against the session now current.
			return zk.ErrConnectionClosed // retryable: the next attempt takes it
		}
		step := protectedStep{parent: parent, tag: tag, target: target, data: data, flags: flags, ttl: opts.ttl,
			ephemeral: ephemeral, sess: sess, search: maybeCreated, replace: opts.replace, list: opts.list}
		done := make(chan struct{})
		r, err := await(ctx, c, func() (stepResult, error) { return c.createStep(conn, step) },
			func(r stepResult, err error) {
				// ctx ended while the step's requests were in flight, and the
				// step has now ended: the search runs after every request it
				// sent, so it sees the node if the step made (or found) one.
				defer close(done)
				if err == nil || r.maybeCreated {
					c.removeProtected(parent, tag)
				}
			})
		if errors.Is(err, errAbandoned) {
			maybeCreated = false // the step's goroutine cleans up (see above)
			cleaned = done
			return err
		}
		maybeCreated = r.maybeCreated
		if err != nil {
			return err
		}
		out = protectedOut{node: ProtectedNode{Path: c.rel(r.path), Session: sess, Stat: r.stat},
			replaced: r.replaced, kids: r.kids, listed: r.listed}
		return nil
	})
	if err != nil {
		switch {
		case maybeCreated:
			c.removeProtected(parent, tag)
		case cleaned != nil:
			c.awaitCleanup(cleaned)
		}
		return protectedOut{}, aclErr("create", path, err)
	}
	return out, nil
}

// awaitCleanup waits, within removeWithin, for the cleanup of an abandoned
// attempt of CreateProtected, so that a caller usually finds no trace of the
// node when the call returns; past the bound (the link is silent, say), the
// cleanup goes on in the background.
func (c *Client) awaitCleanup(cleaned <-chan struct{}) {
	t := time.NewTimer(removeWithin)
	defer t.Stop()
	select {
	case <-cleaned:
	case <-t.C:
	case <-c.closedCh:
	}
}

// protectedStep is one attempt of CreateProtected: the inputs of createStep,
// which may run on a goroutine of its own (see await) and so gets copies.
type protectedStep struct {
	parent, tag, target string
	data                []byte
	flags               int32
	ttl                 time.Duration // > 0: a TTL node (CreateProtected WithTTL)
	ephemeral           bool
	sess                *Session
	search              bool   // an earlier attempt's create may have succeeded unseen
	replace             string // a node to delete in the create's transaction, or ""
	list                bool   // list parent behind the create
}

// stepResult is what an attempt of CreateProtected learnt.
type stepResult struct {
	path         string   // absolute path of the node made or found, on success
	stat         *zk.Stat // the node's stat as created, when the server said
	maybeCreated bool     // on failure: a node may exist that no one knows of
	replaced     bool     // on success: the step's transaction also deleted s.replace
	kids         []string // on success with s.list: parent's children right after the create
	listed       bool     // kids is that listing
}

// createStep looks for the node an earlier attempt may have made (when
// s.search) and otherwise creates it, on conn.
func (c *Client) createStep(conn *wire.Conn, s protectedStep) (stepResult, error) {
	if s.search {
		found, err := c.findProtected(conn, s.parent, s.tag)
		if err != nil {
			return stepResult{maybeCreated: true}, err
		}
		if found != nil {
			if !s.ephemeral || found.stat.EphemeralOwner == s.sess.ID() {
				return stepResult{path: found.path}, nil
			}
			// Left by a session that is gone: it must not be mistaken for ours.
			if err := conn.Delete(bg, found.path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return stepResult{maybeCreated: true}, err
			}
		}
	}
	if s.replace != "" && s.ttl == 0 {
		res, err := conn.Multi(bg, &zk.DeleteRequest{Path: s.replace, Version: -1},
			&zk.CreateRequest{Path: s.target, Data: s.data, Acl: c.aclFor(s.target), Flags: s.flags})
		switch {
		case err == nil && len(res) == 2:
			return stepResult{path: res[1].String, stat: res[1].Stat, replaced: true}, nil
		case err == nil || c.retryable(err):
			// The transaction may have committed unseen: the next
			// attempt searches, and the caller deletes s.replace.
			return stepResult{maybeCreated: true}, cmp.Or(err, errShortMulti)
		}
		// The server refused the transaction as a whole (the node to
		// delete is gone, say): nothing of it happened; create alone.
	}
	if s.list && s.ttl == 0 {
		out, kids, listErr, err := conn.CreateThenChildren(bg, s.target, s.data, s.flags, c.aclFor(s.target), s.parent)
		switch {
		case err == nil:
			return stepResult{path: out, kids: kids, listed: listErr == nil}, nil
		case !errors.Is(err, zk.ErrNoNode):
			return stepResult{maybeCreated: c.retryable(err)}, err
		}
		// A parent is missing: it is made below, then the node.
	}
	out, err := c.createWithParents(conn, s.target, s.data, s.flags, s.ttl)
	if err != nil {
		return stepResult{maybeCreated: c.retryable(err)}, err
	}
	return stepResult{path: out}, nil
}

// removeProtected deletes a node whose create may have succeeded unseen when
// the caller gave up (ctx ended, or the policy did), so that no orphan is
// left in a live session: at once when it can (within a short bound of its
// own, since the caller's context is already over), else as a guaranteed
// delete in the background (see DeleteGuaranteed).
func (c *Client) removeProtected(parent, tag string) {
	op := func(conn *wire.Conn) error {
		found, err := c.findProtected(conn, parent, tag)
		if err != nil || found == nil {
			return err
		}
		if err := conn.Delete(bg, found.path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeWithin)
	defer cancel()
	if err := c.run(ctx, op); err == nil || !mayPass(err) {
		if err != nil {
			c.countGivenUp(err)
			c.log.Warn("could not delete a protected node; it goes with its session", "parent", parent, "tag", tag, "err", err)
		}
		return
	}
	c.keepDeleting("protected node "+parent+"/"+tag+"*", nil, op)
}

// removeWithin bounds the first, synchronous try of removeProtected, and how
// long a CreateProtected given up waits for its cleanup. It covers a
// reconnect to a single server (its redial pause is a second), so that the
// node is usually gone when the call returns, and stays under two seconds,
// so that a service's shutdown with the server gone is not held up longer.
const removeWithin = 1800 * time.Millisecond

type foundNode struct {
	path string
	stat *zk.Stat
}

// findProtected looks in parent for a child whose name starts with tag.
func (c *Client) findProtected(conn *wire.Conn, parent, tag string) (*foundNode, error) {
	kids, _, err := conn.Children(bg, parent)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		if !strings.HasPrefix(k, tag) {
			continue
		}
		p := joinPath(parent, k)
		ok, st, err := conn.Exists(bg, p)
		if err != nil {
			return nil, err
		}
		if ok {
			return &foundNode{path: p, stat: st}, nil
		}
	}
	return nil, nil
}

// errShortMulti is a transaction's error when the server answered with
// fewer results than ops. It is retryable: the outcome is unknown.
var errShortMulti = zk.ErrConnectionClosed
