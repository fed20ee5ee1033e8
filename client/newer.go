package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zkrecipes/zkrecipes/client/internal/wire"
)

// Requests of ZooKeeper 3.6 and later that go-zookeeper never had. A server
// before them answers an error wrapping ErrUnsupported, never retried.

// ErrUnsupported is wrapped by the error of a request the server does not
// implement (one of ZooKeeper 3.6+ on an older server).
var ErrUnsupported = errors.New("zkrecipes: the server does not implement this request")

// unsupported turns the connection's "not implemented" into ErrUnsupported.
func unsupported(what string, err error) error {
	if errors.Is(err, wire.ErrUnimplemented) {
		return fmt.Errorf("%w: %s", ErrUnsupported, what)
	}
	return err
}

// Identity is one identity the server knows the session by (WhoAmI).
type Identity struct {
	// Scheme is the authentication scheme: "ip", "digest", "x509", ...
	Scheme string
	// User is the identity in that scheme.
	User string
}

// Ephemerals lists the ephemeral nodes of the client's current session
// whose paths start with prefix (a path under the namespace: "/" for all
// of them), as paths relative to the namespace (ZooKeeper 3.6+).
func (c *Client) Ephemerals(ctx context.Context, prefix string) ([]string, error) {
	full, err := c.abs(prefix)
	if err != nil {
		return nil, err
	}
	out, err := runResult(c, ctx, func(conn *wire.Conn) ([]string, error) {
		return conn.GetEphemerals(bg, full)
	})
	if err != nil {
		return nil, unsupported("getEphemerals", err)
	}
	rel := make([]string, 0, len(out))
	for _, p := range out {
		if c.cfg.namespace == "" || p == c.cfg.namespace || strings.HasPrefix(p, c.cfg.namespace+"/") {
			rel = append(rel, c.rel(p))
		}
	}
	return rel, nil
}

// CountDescendants counts every node under path, at any depth, path itself
// not included (ZooKeeper 3.6+ getAllChildrenNumber): one request however
// large the subtree.
func (c *Client) CountDescendants(ctx context.Context, path string) (int, error) {
	full, err := c.abs(path)
	if err != nil {
		return 0, err
	}
	n, err := runResult(c, ctx, func(conn *wire.Conn) (int, error) {
		return conn.GetAllChildrenNumber(bg, full)
	})
	return n, aclErr("count", path, unsupported("getAllChildrenNumber", err))
}

// WhoAmI returns the identities the server has authenticated the session
// as (ZooKeeper 3.7+).
func (c *Client) WhoAmI(ctx context.Context) ([]Identity, error) {
	if c == nil || c.closedCh == nil {
		return nil, errZeroClient()
	}
	ids, err := runResult(c, ctx, func(conn *wire.Conn) ([]wire.ClientInfo, error) {
		return conn.WhoAmI(bg)
	})
	if err != nil {
		return nil, unsupported("whoAmI", err)
	}
	out := make([]Identity, 0, len(ids))
	for _, id := range ids {
		out = append(out, Identity{Scheme: id.AuthScheme, User: id.User})
	}
	return out, nil
}
