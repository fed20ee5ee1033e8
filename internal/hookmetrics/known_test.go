package hookmetrics

import (
	"testing"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// TestStateIndex: the known states are at their index; any other state
// is not known.
func TestStateIndex(t *testing.T) {
	for i, s := range States {
		if got, ok := StateIndex(s); !ok || got != i {
			t.Errorf("StateIndex(%v) = %d, %v; want %d, true", s, got, ok, i)
		}
	}
	for _, s := range []client.State{0, client.State(len(States) + 1), client.State(9), -1} {
		if _, ok := StateIndex(s); ok {
			t.Errorf("StateIndex(%v): known", s)
		}
	}
}
