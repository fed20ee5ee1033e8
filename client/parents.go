package client

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// maxParentRounds bounds how often a create re-makes parents that keep
// vanishing under it (a container is reaped between its creation and the
// child's): far more than any real race needs, and never a livelock.
const maxParentRounds = 16

// errParentsVanish reports that parents kept disappearing.
var errParentsVanish = errors.New("zkrecipes: parent nodes keep disappearing")

// createWithParents creates full, making missing ancestors as containers
// whenever the server answers NoNode. Paths are absolute (namespaced).
func (c *Client) createWithParents(conn *zk.Conn, full string, data []byte, flags int32) (string, error) {
	return c.withParents(conn, full, func() (string, error) { return conn.Create(full, data, flags, c.aclFor(full)) })
}

// withParents runs create, a create of the absolute path full, making
// full's missing ancestors as containers whenever the server answers NoNode.
func (c *Client) withParents(conn *zk.Conn, full string, create func() (string, error)) (string, error) {
	for round := 0; round < maxParentRounds; round++ {
		out, err := create()
		if !errors.Is(err, zk.ErrNoNode) {
			return out, err
		}
		if err := c.ensureContainers(conn, parentOf(full)); err != nil {
			return "", err
		}
	}
	return "", errParentsVanish
}

// ensureContainers makes p and its missing ancestors as container nodes.
func (c *Client) ensureContainers(conn *zk.Conn, p string) error {
	if p == "/" {
		return nil
	}
	for round := 0; round < maxParentRounds; round++ {
		_, err := conn.CreateContainer(p, nil, zk.FlagContainer, c.aclFor(p))
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
