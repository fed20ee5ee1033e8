package hookmetrics

import "github.com/go-zkrecipes/zkrecipes/client"

// States are the client's states whose series the adapters make in New,
// at zero; index i is State i+1 (StateIndex).
var States = [...]client.State{client.StateConnected, client.StateSuspended, client.StateReconnected, client.StateLost}

// StateIndex is s's index in States; false for a state not there, whose
// series are made when it is first entered.
func StateIndex(s client.State) (int, bool) {
	i := int(s) - 1
	return i, i >= 0 && i < len(States)
}

// CacheTypes are the cache event types (as Curator names them) whose
// series the adapters make in New, at zero, when the path is no label.
var CacheTypes = [...]string{"NODE_CREATED", "NODE_CHANGED", "NODE_DELETED", "INITIALIZED"}
