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
// take effect. A nil or zero Conn's calls fail with ErrNotStarted.
type Conn struct {
	t *wire.Conn
}

func (c *Conn) usable() error {
	if c == nil || c.t == nil {
		return ErrNotStarted
	}
	return nil
}

// Get returns a node's data and stat.
func (c *Conn) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, nil, err
	}
	r, err := awaitConn(ctx, func() (getReply, error) {
		data, st, err := c.t.Get(bg, path)
		return getReply{data, st}, err
	}).get()
	return r.data, r.st, err
}

// Set writes a node's data if its version matches (-1 for any version).
func (c *Conn) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	data = detach(ctx, data)
	return awaitConn(ctx, func() (*zk.Stat, error) { return c.t.Set(bg, path, data, version) }).get()
}

// GetACL returns a node's ACL and stat.
func (c *Conn) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	if err := c.usable(); err != nil {
		return nil, nil, err
	}
	type reply struct {
		acl []zk.ACL
		st  *zk.Stat
	}
	r, err := awaitConn(ctx, func() (reply, error) {
		acl, st, err := c.t.GetACL(bg, path)
		return reply{acl, st}, err
	}).get()
	return r.acl, r.st, err
}

// Sync makes the server this connection is on catch up with the leader.
func (c *Conn) Sync(ctx context.Context, path string) (string, error) {
	if err := c.usable(); err != nil {
		return "", err
	}
	return awaitConn(ctx, func() (string, error) { return c.t.Sync(bg, path) }).get()
}

// Server is the address ("host:port") of the server the connection is on.
func (c *Conn) Server() string {
	if c.usable() != nil {
		return ""
	}
	return c.t.Server()
}

type getReply struct {
	data []byte
	st   *zk.Stat
}

// outcome is a request's result, or ctx's error.
type outcome[T any] struct {
	v   T
	err error
}

func (o outcome[T]) get() (T, error) { return o.v, o.err }

// awaitConn runs fn on a goroutine of its own and returns its result, or
// ctx's error as soon as ctx ends (fn then finishes on its own).
func awaitConn[T any](ctx context.Context, fn func() (T, error)) outcome[T] {
	if ctx.Done() == nil {
		v, err := fn()
		return outcome[T]{v, err}
	}
	ch := make(chan outcome[T], 1)
	go func() {
		v, err := fn()
		ch <- outcome[T]{v, err}
	}()
	select {
	case o := <-ch:
		return o
	case <-ctx.Done():
		var zero T
		return outcome[T]{zero, ctx.Err()}
	}
}

// bg is the context of requests made inside await, which must run to their
// reply or the connection's loss, as go-zookeeper's did: the code around an
// abandoned attempt judges it by what it did, which a request cut short by
// its ctx would not tell.
var bg = context.Background()
