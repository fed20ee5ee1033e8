package discovery

import (
	"context"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// registrar keeps one instance's node on the server: Curator's
// PersistentNode, which its ServiceDiscovery registers on. It is the seam
// between the registrations and how their nodes are kept.
type registrar interface {
	// Start begins creating the node in the background.
	Start() error
	// WaitForInitialCreate waits until the node was created once.
	WaitForInitialCreate(ctx context.Context) error
	// SetData writes data to the node and keeps it for every later
	// re-creation.
	SetData(ctx context.Context, data []byte) error
	// Close stops keeping the node and deletes it (guaranteed delete).
	Close(ctx context.Context) error
}

// newRegistrar returns the registrar of an instance of type t at path.
var newRegistrar = func(c *client.Client, path string, data []byte, t ServiceType, log logger) (registrar, error) {
	return newClientNode(c, path, data, t, log), nil
}
