package client

import (
	"time"

	"github.com/go-zkrecipes/zkrecipes/internal/enum"
)

// State is the client's view of its ZooKeeper connection, as Curator names it.
type State int

const (
	// StateConnected is published once, when the first session is established.
	StateConnected State = iota + 1
	// StateSuspended means the connection was lost; the session may still be
	// alive on the server. Whoever holds a lock can no longer be sure of it.
	StateSuspended
	// StateReconnected means a connection is back: to the same session after
	// Suspended, or to a new session after Lost.
	StateReconnected
	// StateLost means the session is gone: the server expired it, or the client
	// went a whole session timeout without a connection and gave it up. Every
	// ephemeral node of that session is, or will shortly be, deleted.
	StateLost
)

// String is the state's name, as Curator spells it ("Suspended", ...).
func (s State) String() string {
	return enum.Name(s, StateConnected, "State", "Connected", "Suspended", "Reconnected", "Lost")
}

// StateChange is one transition, as delivered to subscribers.
type StateChange struct {
	// State is the state entered.
	State State
	// SessionID is the session the transition concerns: the new session for
	// Connected and Reconnected, the affected one for Suspended and Lost.
	SessionID int64
	// Time is when the client observed the transition.
	Time time.Time
}
