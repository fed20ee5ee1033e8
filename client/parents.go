package client

import (
	"context"
	"errors"
	"time"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"

	"github.com/go-zookeeper/zk"
)

// maxParentRounds bounds how often a create re-makes parents that keep
// vanishing under it (a container is reaped between its creation and the
// child's): far more than any real race needs, and never a livelock.
const maxParentRounds = 16

// errParentsVanish reports that parents kept disappearing.
var errParentsVanish = errors.New("zkrecipes: parent nodes keep disappearing")

// createWithParents creates full (a TTL node when ttl > 0), making missing
// ancestors as containers whenever the server answers NoNode. Paths are
// absolute (namespaced).
func (c *Client) createWithParents(conn *wire.Conn, full string, data []byte, flags int32, ttl time.Duration) (string, error) {
	for round := 0; round < maxParentRounds; round++ {
		out, err := c.createNode(conn, full, data, flags, ttl)
		if !errors.Is(err, zk.ErrNoNode) {
			return out, err
		}
		if err := c.ensureContainers(conn, parentOf(full)); err != nil {
			return "", err
		}
	}
	return "", errParentsVanish
}

// createNode creates the absolute path full with the client's ACL for it,
// a TTL node when ttl > 0.
func (c *Client) createNode(conn *wire.Conn, full string, data []byte, flags int32, ttl time.Duration) (string, error) {
	if ttl > 0 {
		return conn.CreateTTL(bg, full, data, flags, c.aclFor(full), ttl)
	}
	return conn.Create(bg, full, data, flags, c.aclFor(full))
}

// ensureContainers makes p and its missing ancestors as container nodes.
func (c *Client) ensureContainers(conn *wire.Conn, p string) error {
	if p == "/" {
		return nil
	}
	for round := 0; round < maxParentRounds; round++ {
		_, err := conn.CreateContainer(bg, p, nil, zk.FlagContainer, c.aclFor(p))
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if err := c.ensureContainers(conn, parentOf(p)); err != nil {
				return err
			}
		default:
			return err
		}
	}
	return errParentsVanish
}

// EnsureContainers makes path and each of its missing ancestors as a
// container node (Curator's EnsureContainers); nodes already there are
// left as they are. A recipe that creates nodes with the raw connection
// (Conn) calls it when a create finds its parent missing.
func (c *Client) EnsureContainers(ctx context.Context, path string) error {
	full, err := c.abs(path)
	if err != nil {
		return err
	}
	return aclErr("create", path, c.run(ctx, func(conn *wire.Conn) error { return c.ensureContainers(conn, full) }))
}
