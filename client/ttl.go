package client

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"
)

// MaxTTL is the longest time to live ZooKeeper accepts for a TTL node:
// 2^40-1 milliseconds, about 34 years.
const MaxTTL = (1<<40 - 1) * time.Millisecond

// CreateTTL creates a TTL node: a persistent node that the server deletes
// once it has no children and its data was last written (or the node
// created) more than ttl ago. The server checks at its container reaping
// interval (znode.container.checkIntervalMs, 60 s by default), so such a
// node goes between ttl and about ttl plus that interval after its last
// write. flags are zk.FlagTTL or zk.FlagPersistentSequentialWithTTL;
// ttl is a whole number of milliseconds from 1 ms to MaxTTL (it is
// truncated to milliseconds). Bad flags or ttl are an error wrapping
// zkrecipes.ErrInvalidArgument, before any I/O.
//
// The server must allow TTL nodes (ZooKeeper 3.5.3 or later, started with
// -Dzookeeper.extendedTypesEnabled=true); one that does not answers
// zk.ErrUnimplemented. As with Create, the parent must exist, except the
// namespace root, and a create whose reply was lost may report
// zk.ErrNodeExists when retried (CreateProtectedTTL has no such ambiguity).
func (c *Client) CreateTTL(ctx context.Context, path string, data []byte, flags int32, ttl time.Duration) (string, error) {
	full, err := c.absTTL(path, flags, ttl)
	if err != nil {
		return "", err
	}
	return c.create(ctx, path, full, data, flags, ttl, false)
}

// CreateTTLWithParents is CreateTTL that first makes any missing ancestor
// as a container node, as CreateWithParents does.
func (c *Client) CreateTTLWithParents(ctx context.Context, path string, data []byte, flags int32, ttl time.Duration) (string, error) {
	full, err := c.absTTL(path, flags, ttl)
	if err != nil {
		return "", err
	}
	return c.create(ctx, path, full, data, flags, ttl, true)
}

// CreateProtectedTTL is CreateProtected for a TTL node (see CreateTTL for
// flags and ttl): the node's name carries a UUID, so a create whose reply
// was lost is found again rather than made twice. Missing parents are made
// as containers.
func (c *Client) CreateProtectedTTL(ctx context.Context, path string, data []byte, flags int32, ttl time.Duration) (ProtectedNode, error) {
	if _, err := c.absTTL(path, flags, ttl); err != nil {
		return ProtectedNode{}, err
	}
	node, _, err := c.createProtected(ctx, path, data, flags, ttl, "")
	return node, err
}

// absTTL is abs for a TTL node's path, that also refuses bad flags or ttl
// (see checkTTL).
func (c *Client) absTTL(path string, flags int32, ttl time.Duration) (string, error) {
	full, err := c.abs(path)
	if err != nil {
		return "", err
	}
	return full, checkTTL(flags, ttl)
}

// checkTTL refuses flags that are not a TTL mode and a ttl out of
// ZooKeeper's range.
func checkTTL(flags int32, ttl time.Duration) error {
	switch {
	case flags != zk.FlagTTL && flags != zk.FlagPersistentSequentialWithTTL:
		return invalidArg("TTL node flags %d: want zk.FlagTTL or zk.FlagPersistentSequentialWithTTL", flags)
	case ttl < time.Millisecond:
		return invalidArg("TTL %v: want at least 1ms", ttl)
	case ttl > MaxTTL:
		return invalidArg("TTL %v: longer than ZooKeeper's maximum %v", ttl, MaxTTL)
	}
	return nil
}
