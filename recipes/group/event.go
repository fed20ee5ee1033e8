package group

import "github.com/go-zkrecipes/zkrecipes/internal/enum"

// EventType says what happened to a member.
type EventType int

const (
	// Joined: a member's node appeared (every member of the first load,
	// then each newcomer; a member whose node was made again after a
	// session loss leaves and joins again).
	Joined EventType = iota + 1
	// Updated: a member's data changed.
	Updated
	// Left: a member's node is gone (it left, or its session ended).
	Left
	// Loaded: the first load of the group is done; it comes once, after the
	// Joined events of the members found then.
	Loaded
)

// String names the type.
func (t EventType) String() string {
	return enum.Name(t, Joined, "EventType", "JOINED", "UPDATED", "LEFT", "LOADED")
}

// Event is one change of the group as a member sees it.
type Event struct {
	// Type is what happened.
	Type EventType
	// ID is the member's id (empty for Loaded).
	ID string
	// Data is the member's data after the change (as last seen for Left).
	// It is shared: do not modify it.
	Data []byte
}
