package client

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
)

// Conn is one connection of the client, as Client.Conn returns it: raw
// requests with absolute paths (the namespace is not applied) that are
// never retried. Each returns when its reply comes, the connection is lost
// (zk.ErrConnectionClosed) or the client closes (zk.ErrClosing); when ctx
// ends first it returns ctx's error at once, and the request may still
// take effect. A nil or zero Conn's calls fail with zkrecipes.ErrNotStarted.
type Conn struct {
	t *wire.Conn
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
