package discovery

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Ports of Curator's TestDownInstanceManager, on a clock of the test's own.

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newTestDown(threshold int) (*downInstances, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	d := newDownInstances(DownInstancePolicy{Timeout: time.Second, ErrorThreshold: threshold})
	d.now = clock.now
	return d, clock
}

var (
	instance1 = Instance{Name: "hey", ID: "1"}
	instance2 = Instance{Name: "hey", ID: "2"}
)

func TestDownInstanceManagerBasic(t *testing.T) {
	d, _ := newTestDown(1)
	require.True(t, d.up(instance1))
	require.True(t, d.up(instance2))
	d.add(instance1)
	require.False(t, d.up(instance1))
	require.True(t, d.up(instance2))
}

func TestDownInstanceManagerThreshold(t *testing.T) {
	d, _ := newTestDown(2)
	d.add(instance1)
	require.True(t, d.up(instance1))
	require.True(t, d.up(instance2))
	d.add(instance1)
	require.False(t, d.up(instance1))
	require.True(t, d.up(instance2))
}

func TestDownInstanceManagerExpiration(t *testing.T) {
	d, clock := newTestDown(1)
	d.add(instance1)
	require.False(t, d.up(instance1))
	clock.t = clock.t.Add(999 * time.Millisecond)
	require.False(t, d.up(instance1))
	clock.t = clock.t.Add(time.Millisecond) // the timeout since the first error
	require.True(t, d.up(instance1))
	require.True(t, d.up(instance2))
}

// TestDownInstanceManagerSameInstance: an instance is the same only while
// all its fields are (Curator keys by equals).
func TestDownInstanceManagerSameInstance(t *testing.T) {
	d, _ := newTestDown(1)
	d.add(instance1)
	changed := instance1
	changed.Port = 80
	require.True(t, d.up(changed))
	require.False(t, d.up(Instance{Name: "hey", ID: "1"}))
}
