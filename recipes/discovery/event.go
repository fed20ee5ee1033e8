package discovery

import "github.com/go-zkrecipes/zkrecipes/internal/enum"

// EventType says what happened to an instance in a Cache's view.
type EventType int

const (
	// Added: an instance entered the view (registered, or found by the
	// initial load).
	Added EventType = iota + 1
	// Updated: an instance's data was written (Curator's updateService).
	Updated
	// Removed: an instance left the view (unregistered, its session ended,
	// or its node's data no longer reads as an instance).
	Removed
	// Initialized: the initial load is done; it comes once, after the
	// Added events of the instances found then.
	Initialized
)

// String names the type as Curator's PathChildrenCacheEvent does.
func (t EventType) String() string {
	return enum.Name(t, Added, "EventType", "CHILD_ADDED", "CHILD_UPDATED", "CHILD_REMOVED", "INITIALIZED")
}

// Event is one change of a Cache's view.
type Event struct {
	// Type is what happened.
	Type EventType
	// Instance is the instance after the change (Added, Updated) or as it
	// was last seen (Removed); zero for Initialized.
	Instance Instance
	// Node is the name of the instance's node under base/name: its ID, or
	// for a DynamicSequential instance its ID and sequence number; "" for
	// Initialized.
	Node string
}
