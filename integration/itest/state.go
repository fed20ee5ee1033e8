package itest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
)

// WaitState waits up to d for the client state want (of session sid,
// unless 0) on states, skipping every other change, and returns it; it
// fails the test when states closes or d passes first.
func WaitState(t testing.TB, states <-chan client.StateChange, want client.State, sid int64, d time.Duration) client.StateChange {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-states:
			require.True(t, ok, "state subscription closed")
			if ev.State == want && (sid == 0 || ev.SessionID == sid) {
				return ev
			}
		case <-deadline:
			require.FailNowf(t, "no state change", "no %v within %v", want, d)
			return client.StateChange{}
		}
	}
}
