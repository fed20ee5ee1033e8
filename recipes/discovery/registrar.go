package discovery

import (
	"context"
	"log/slog"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
)

// registrar keeps one instance's node on the server: a *node.Node,
// Curator's PersistentNode. The interface is the one seam between the
// registrations and how their nodes are kept.
type registrar interface {
	// Start begins keeping the node and waits until it was created once
	// (or ctx ends: it goes on trying in the background).
	Start(ctx context.Context) error
	// SetData writes data to the node and keeps it for every later
	// re-creation.
	SetData(ctx context.Context, data []byte) error
	// Close stops keeping the node and deletes it (guaranteed delete).
	Close(ctx context.Context) error
}

// newRegistrar returns the persistent node of an instance of type t at
// path: Dynamic is an ephemeral node, DynamicSequential a protected
// ephemeral sequential one, Static and Permanent persistent nodes (as
// Curator's ServiceDiscovery creates them; protection keeps a create whose
// reply was lost from leaving a second sequential node).
func newRegistrar(c *client.Client, path string, data []byte, t ServiceType, log *slog.Logger) (registrar, error) {
	var opts []node.Option
	switch t {
	case DynamicSequential:
		opts = append(opts, node.WithMode(node.EphemeralSequential), node.WithProtection())
	case Static, Permanent:
		opts = append(opts, node.WithMode(node.Persistent))
	default:
		opts = append(opts, node.WithMode(node.Ephemeral))
	}
	n, err := node.New(c, path, data, opts...)
	if err != nil {
		return nil, err // no non-nil interface holding a nil *Node
	}
	return n, nil
}
