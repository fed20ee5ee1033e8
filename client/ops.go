package client

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
)

// Every operation below takes a path relative to the client's namespace,
// validates it (a *PathError on bad input, before any I/O) and runs under the
// retry policy. Paths returned are relative to the namespace too.

// abs validates p and puts it under the namespace.
func (c *Client) abs(p string) (string, error) {
	if c == nil || c.closedCh == nil {
		return "", errZeroClient()
	}
	if err := ValidatePath(p); err != nil {
		return "", err
	}
	return c.nsPath(p), nil
}

// nsPath puts the valid path p under the namespace.
func (c *Client) nsPath(p string) string {
	switch {
	case c.cfg.namespace == "":
		return p
	case p == "/":
		return c.cfg.namespace
	default:
		return c.cfg.namespace + p
	}
}

// rel strips the namespace from a path the server returned.
func (c *Client) rel(p string) string {
	ns := c.cfg.namespace
	if ns == "" {
		return p
	}
	if p == ns {
		return "/"
	}
	return strings.TrimPrefix(p, ns)
}

// readReply is what a read request answers, carried from the goroutine the
// request runs on (see runResult) back to its caller.
type readReply struct {
	data  []byte
	kids  []string
	ok    bool
	stat  *zk.Stat
	watch <-chan zk.Event
}

// Get returns a node's data and stat.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (readReply, error) {
		data, st, err := conn.Get(ctx, full)
		return readReply{data: data, stat: st}, err
	})
	return r.data, r.stat, aclErr("get", path, err)
}

// GetW is Get that also leaves a data watch on the node. The channel gets one
// event: the node changed or was deleted, or (zk.EventNotWatching) the watch
// was dropped because its session or connection ended. A call abandoned
// because ctx ended leaves no watch behind. The watch cannot be given up
// once set: GetWatch's can.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (readReply, error) {
		data, st, ch, err := conn.GetW(ctx, full)
		return readReply{data: data, stat: st, watch: ch}, err
	})
	return r.data, r.stat, r.watch, aclErr("get", path, err)
}

// Set writes a node's data if its version matches (-1 for any version).
// When ctx ends first, Set returns at once, but the write may still be
// applied: see Create.
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, err
	}
	st, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (*zk.Stat, error) {
		return conn.Set(ctx, full, data, version)
	})
	return st, aclErr("set", path, err)
}

// Exists reports whether a node exists, with its stat when it does.
func (c *Client) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	full, err := c.abs(path)
	if err != nil {
		return false, nil, err
	}
	r, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (readReply, error) {
		ok, st, err := conn.Exists(ctx, full)
		return readReply{ok: ok, stat: st}, err
	})
	return r.ok, r.stat, aclErr("exists", path, err)
}

// ExistsW is Exists that leaves a watch, whether or not the node exists.
// A call abandoned because ctx ended leaves no watch behind; ExistsWatch's
// watch can be given up.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	full, err := c.abs(path)
	if err != nil {
		return false, nil, nil, err
	}
	r, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (readReply, error) {
		ok, st, ch, err := conn.ExistsW(ctx, full)
		return readReply{ok: ok, stat: st, watch: ch}, err
	})
	return r.ok, r.stat, r.watch, aclErr("exists", path, err)
}

// Children lists a node's children (names, unsorted).
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (readReply, error) {
		kids, st, err := conn.Children(ctx, full)
		return readReply{kids: kids, stat: st}, err
	})
	return r.kids, r.stat, aclErr("children", path, err)
}

// ChildrenW is Children that leaves a child watch on the node. A call
// abandoned because ctx ended leaves no watch behind; ChildrenWatch's
// watch can be given up.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	full, err := c.abs(path)
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (readReply, error) {
		kids, st, ch, err := conn.ChildrenW(ctx, full)
		return readReply{kids: kids, stat: st, watch: ch}, err
	})
	return r.kids, r.stat, r.watch, aclErr("children", path, err)
}

// Delete deletes a node if its version matches (-1 for any version).
// After a lost connection the retry may find the node already gone:
// zk.ErrNoNode then means either outcome; DeleteIfExists hides it. When ctx
// ends first, Delete returns at once, but the delete may still be applied.
func (c *Client) Delete(ctx context.Context, path string, version int32) error {
	full, err := c.abs(path)
	if err != nil {
		return err
	}
	_, err = runOne(c, ctx, func(ctx context.Context, conn *wire.Conn) (struct{}, error) {
		return struct{}{}, conn.Delete(ctx, full, version)
	})
	return aclErr("delete", path, err)
}

// DeleteIfExists deletes a node, treating "already gone" as success.
func (c *Client) DeleteIfExists(ctx context.Context, path string) error {
	err := c.Delete(ctx, path, -1)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// Create creates a node with the client's ACL; the parent must exist
// (WithParents makes missing ones), except the namespace root, which is
// made (as a container) when missing. flags are go-zookeeper's
// (zk.FlagEphemeral, zk.FlagSequence, ...; with WithTTL, zk.FlagTTL or
// zk.FlagPersistentSequentialWithTTL). It returns the node's path (with
// its sequence number), relative to the namespace. Bad flags or options
// are an error wrapping zkrecipes.ErrInvalidArgument, before any I/O.
// Retrying a create whose reply was lost may report zk.ErrNodeExists for a
// node this very call made; CreateProtected has no such ambiguity.
//
// When ctx ends while the request is in flight, Create returns at once with
// ctx's error, but the request goes on: the node may still be created
// afterwards (an ephemeral one lives as long as its session), and no one
// learns of it. CreateProtected finds and deletes such a node.
func (c *Client) Create(ctx context.Context, path string, data []byte, flags int32, opts ...CreateOption) (string, error) {
	o, err := createOpts(opts)
	if err != nil {
		return "", err
	}
	full, err := c.abs(path)
	if err != nil {
		return "", err
	}
	if o.ttl > 0 {
		if err := checkTTL(flags, o.ttl); err != nil {
			return "", err
		}
	}
	return c.create(ctx, path, full, data, flags, o.ttl, o.parents)
}

// create is Create of the absolute path full, given as path, making
// missing parents when parents is set, and of a TTL node when ttl > 0.
func (c *Client) create(ctx context.Context, path, full string, data []byte, flags int32, ttl time.Duration, parents bool) (string, error) {
	data = detach(ctx, data)
	out, err := runResult(c, ctx, func(conn *wire.Conn) (string, error) {
		if parents {
			return c.createWithParents(conn, full, data, flags, ttl)
		}
		out, err := c.createNode(conn, full, data, flags, ttl)
		if errors.Is(err, zk.ErrNoNode) && c.underNamespaceRoot(full) {
			// WithNamespace promises the namespace's nodes on demand, so a
			// node right under the namespace root must not fail for want of
			// the root: it may not exist yet, or no more (it is a container,
			// which the server reaps once it has had children and has none
			// left). Only the root is made here; deeper parents stay the
			// caller's business, as the Create contract says.
			if err = c.ensureContainers(conn, c.cfg.namespace); err != nil {
				return "", err
			}
			out, err = c.createNode(conn, full, data, flags, ttl)
		}
		return out, err
	})
	return c.rel(out), aclErr("create", path, err)
}

// underNamespaceRoot reports whether the absolute path full is a direct child
// of the client's namespace root.
func (c *Client) underNamespaceRoot(full string) bool {
	return c.cfg.namespace != "" && full != c.cfg.namespace && parentOf(full) == c.cfg.namespace
}

// detach copies data that a request may still read after its caller has
// returned (see runResult), so that the caller may reuse its buffer. A ctx
// that can never end keeps the request on the caller's goroutine: no copy.
func detach(ctx context.Context, data []byte) []byte {
	if ctx.Done() == nil {
		return data
	}
	return bytes.Clone(data)
}
