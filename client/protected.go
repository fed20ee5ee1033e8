package client

import (
	"context"
	"errors"
	"strings"
	"time"

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
}

// CreateProtected creates a node under path's parent named, as Curator names
// it, "_c_" + a fresh UUID + "-" + path's last segment (plus ZooKeeper's
// sequence number when flags include zk.FlagSequence). Missing parents are
// made as containers.
//
// When a create's outcome is unknown (the connection was lost after the
// request was sent), it lists the parent and looks for its own UUID: a node
// found there of the current session is returned instead of creating a
// second one; a node found of an earlier session is deleted and a fresh one
// created. So exactly one node is left, and it is the one returned.
func (c *Client) CreateProtected(ctx context.Context, path string, data []byte, flags int32) (ProtectedNode, error) {
	full, err := c.abs(path)
	if err != nil {
		return ProtectedNode{}, err
	}
	// Judge the path as given, not its namespaced form: under a namespace,
	// "/" becomes the namespace root, whose parent lies outside the
	// namespace, and the node would be created there.
	if path == "/" {
		return ProtectedNode{}, &PathError{Path: path, Reason: "a protected node needs a parent and a name"}
	}
	parent := parentOf(full)
	name := full[len(parent):]
	name = strings.TrimPrefix(name, "/")
	tag := ProtectedPrefix + uuid.NewString() + "-"
	target := joinPath(parent, tag+name)
	ephemeral := flags == zk.FlagEphemeral || flags == zk.FlagEphemeralSequential

	var node ProtectedNode
	maybeCreated := false
	err = c.Do(ctx, func(ctx context.Context) error {
		sess, err := c.WaitSession(ctx)
		if err != nil {
			return err
		}
		conn, err := c.Conn(ctx)
		if err != nil {
			return err
		}
		if maybeCreated {
			found, err := c.findProtected(conn, parent, tag)
			if err != nil {
				return err
			}
			if found != nil {
				if !ephemeral || found.stat.EphemeralOwner == sess.ID() {
					node = ProtectedNode{Path: c.rel(found.path), Session: sess}
					return nil
				}
				// Left by a session that is gone: it must not be mistaken for ours.
				if err := conn.Delete(found.path, -1); err != nil && err != zk.ErrNoNode {
					return err
				}
			}
			maybeCreated = false
		}
		out, err := c.createWithParents(conn, target, data, flags)
		if err != nil {
			maybeCreated = maybeCreated || c.retryable(err)
			return err
		}
		node = ProtectedNode{Path: c.rel(out), Session: sess}
		return nil
	})
	if err != nil {
		if maybeCreated {
			c.removeProtected(parent, tag)
		}
		return ProtectedNode{}, err
	}
	return node, nil
}

// removeProtected deletes a node whose create may have succeeded unseen when
// the caller gave up (ctx ended, or the policy did), so that no orphan is
// left in a live session: at once when it can (within a short bound of its
// own, since the caller's context is already over), else as a guaranteed
// delete in the background (see DeleteGuaranteed).
func (c *Client) removeProtected(parent, tag string) {
	op := func(conn *zk.Conn) error {
		found, err := c.findProtected(conn, parent, tag)
		if err != nil || found == nil {
			return err
		}
		if err := conn.Delete(found.path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeWithin)
	defer cancel()
	if err := c.run(ctx, op); err == nil || !mayPass(err) {
		return
	}
	c.keepDeleting("protected node "+parent+"/"+tag+"*", nil, op)
}

// removeWithin bounds the first, synchronous try of removeProtected.
const removeWithin = 2 * time.Second

type foundNode struct {
	path string
	stat *zk.Stat
}

// findProtected looks in parent for a child whose name starts with tag.
func (c *Client) findProtected(conn *zk.Conn, parent, tag string) (*foundNode, error) {
	kids, _, err := conn.Children(parent)
	if err == zk.ErrNoNode {
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
		ok, st, err := conn.Exists(p)
		if err != nil {
			return nil, err
		}
		if ok {
			return &foundNode{path: p, stat: st}, nil
		}
	}
	return nil, nil
}
