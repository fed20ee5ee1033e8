package client

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
	"github.com/go-zkrecipes/zkrecipes/internal/errs"
)

// Conn is one connection of the client, as Client.Conn returns it: raw
// requests with absolute paths (the namespace is not applied) that are
// never retried. Each returns when its reply comes, the connection is lost
// (zk.ErrConnectionClosed) or the client closes (zk.ErrClosing); when ctx
// ends first it returns ctx's error at once, and the request may still
// take effect. A nil or zero Conn's calls fail with zkrecipes.ErrNotStarted.
type Conn struct {
	t   *wire.Conn
	acl func(full string) []zk.ACL // the client's ACL for a node it creates
}

func (c *Conn) usable() error {
	if c == nil || c.t == nil {
		return errNotStarted
	}
	return nil
}

// Get returns a node's data and stat.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, nil, err
	}
	return c.t.Get(ctx, path)
}

// Set writes a node's data if its version matches (-1 for any version).
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	return c.t.Set(ctx, path, data, version)
}

// GetACL returns a node's ACL and stat.
func (c *Conn) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, nil, err
	}
	return c.t.GetACL(ctx, path)
}

// Sync makes the server this connection is on catch up with the leader.
func (c *Conn) Sync(ctx context.Context, path string) (string, error) {
	if err := c.usable(); err != nil {
		return "", err
	}
	return c.t.Sync(ctx, path)
}

// SessionID is the id of the session this connection carries (0 for a nil
// or zero Conn). A request sent on the connection runs in that session or
// not at all: the server refuses it once the session has expired, so a
// write made only on a Conn of the session that owns an ephemeral node is
// made while that node is still the session's.
func (c *Conn) SessionID() int64 {
	if c.usable() != nil {
		return 0
	}
	return c.t.SessionID()
}

// Create creates a node with the client's ACL for its path and returns its
// path (with the sequence number, for a sequential node) and its stat
// (ZooKeeper's create2). flags are go-zookeeper's.
func (c *Conn) Create(ctx context.Context, path string, data []byte, flags int32) (string, *zk.Stat, error) {
	if err := c.usable(); err != nil {
		return "", nil, err
	}
	return c.t.Create2(ctx, path, data, flags, c.aclOf(path))
}

// Delete deletes a node if its version matches (-1 for any version).
func (c *Conn) Delete(ctx context.Context, path string, version int32) error {
	if err := c.usable(); err != nil {
		return err
	}
	return c.t.Delete(ctx, path, version)
}

// Children lists a node's children (names, unsorted).
func (c *Conn) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, nil, err
	}
	return c.t.Children(ctx, path)
}

// Multi runs ops as one transaction (the op types of Client.Multi, with
// absolute paths): every op commits, or none does. A *zk.CreateRequest
// without an ACL gets the client's ACL for its path; the requests given are
// not modified.
func (c *Conn) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	out, err := c.multiOps(ops)
	if err != nil {
		return nil, err
	}
	return c.t.Multi(ctx, out...)
}

// multiOps checks ops for a transaction and gives creates without an ACL
// the client's, in copies.
func (c *Conn) multiOps(ops []any) ([]any, error) {
	if len(ops) == 0 {
		return nil, errs.Invalid("empty transaction")
	}
	out := make([]any, len(ops))
	for i, op := range ops {
		ok := false
		switch o := op.(type) {
		case *zk.CreateRequest:
			if ok = o != nil; ok && o.Acl == nil {
				cp := *o
				cp.Acl = c.aclOf(o.Path)
				op = &cp
			}
		case *zk.DeleteRequest:
			ok = o != nil
		case *zk.SetDataRequest:
			ok = o != nil
		case *zk.CheckVersionRequest:
			ok = o != nil
		}
		if !ok {
			return nil, errs.Invalid("unsupported transaction op %T", op)
		}
		out[i] = op
	}
	return out, nil
}

// aclOf is the ACL of a node this connection creates at full.
func (c *Conn) aclOf(full string) []zk.ACL {
	if c == nil || c.acl == nil {
		return zk.WorldACL(zk.PermAll)
	}
	return c.acl(full)
}

// Server is the address ("host:port") of the server the connection is on.
func (c *Conn) Server() string {
	if c.usable() != nil {
		return ""
	}
	return c.t.Server()
}

// bg is the context of requests made inside await, which must run to their
// reply or the connection's loss, as go-zookeeper's did: the code around an
// abandoned attempt judges it by what it did, which a request cut short by
// its ctx would not tell.
var bg = context.Background()
