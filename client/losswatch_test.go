package client

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/internal/access"
)

// TestLossWatch: a loss watch is called once, when its Disconnected channel
// closes or, without one, when its session ends; one registered too late
// is refused; an unwatched one is never called; the client's list keeps
// every other in place.
func TestLossWatch(t *testing.T) {
	c, err := New(WithServers("127.0.0.1:1"))
	require.NoError(t, err)
	sess := newSession(1)
	c.mu.Lock()
	c.sess, c.discCh = sess, make(chan struct{})
	disc := c.discCh
	c.mu.Unlock()

	calls := map[string]int{}
	watch := func(name string, d <-chan struct{}) *access.LossWatch {
		return &access.LossWatch{Disc: d, Sess: sess, F: func(arg any) { calls[arg.(string)]++ }, Arg: name}
	}
	onDisc, onDisc2, onSess, dropped := watch("disc", disc), watch("disc2", disc), watch("sess", nil), watch("dropped", disc)
	for _, w := range []*access.LossWatch{onDisc, dropped, onSess, onDisc2} {
		require.True(t, c.watchLoss(w))
	}
	require.True(t, c.unwatchLoss(dropped))
	require.False(t, c.unwatchLoss(dropped), "a second unwatch")

	c.mu.Lock()
	c.markDisconnectedLocked()
	c.mu.Unlock()
	require.Equal(t, map[string]int{"disc": 1, "disc2": 1}, calls, "after the disconnect")
	require.False(t, c.unwatchLoss(onDisc), "unwatch after the call")
	require.False(t, c.watchLoss(watch("late", disc)), "a watch on a closed Disconnected channel")

	c.mu.Lock()
	c.loseLocked()
	c.mu.Unlock()
	require.Equal(t, map[string]int{"disc": 1, "disc2": 1, "sess": 1}, calls, "after the session's end")
	require.False(t, c.watchLoss(watch("late", nil)), "a watch on an ended session")
	require.Empty(t, c.lossWatches)
}
