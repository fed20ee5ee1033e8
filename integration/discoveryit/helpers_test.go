package discoveryit

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/discovery"
)

// base is the base path every test registers under (inside its namespace).
const base = "/discovery"

// newDiscovery makes a Discovery on c at base, closed at cleanup (before
// the client, whose cleanup was registered earlier).
func newDiscovery(t *testing.T, c *client.Client, opts ...discovery.Option) *discovery.Discovery {
	t.Helper()
	d, err := discovery.New(c, base, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = d.Close(ctx)
	})
	return d
}

// onShared is most tests' start: the goroutine leak check, a client on
// the shared server in a namespace of the test's own, a context (30 s) for
// its calls, and a Discovery on the client.
func onShared(t *testing.T) (*client.Client, context.Context, *discovery.Discovery) {
	t.Helper()
	itest.NoLeaks(t)
	c := itest.Connect(t, shared, itest.Opts{NS: itest.Namespace(t)})
	return c, itest.Ctx(t, 30*time.Second), newDiscovery(t, c)
}

// instance is a test instance of service name: id, port, a string payload.
func instance(name, id string, port int, payload string) discovery.Instance {
	inst := discovery.NewInstance(name)
	inst.ID = id
	inst.Port = port
	if payload != "" {
		inst.Payload = json.RawMessage(`"` + payload + `"`)
	}
	return inst
}

// ids lists the instances' ids in order.
func ids(l []discovery.Instance) []string {
	out := []string{}
	for _, i := range l {
		out = append(out, i.ID)
	}
	return out
}

// waitIDs waits until list() gives exactly the ids want (sorted).
func waitIDs(t *testing.T, what string, list func() []discovery.Instance, want ...string) []discovery.Instance {
	t.Helper()
	slices.Sort(want)
	if want == nil {
		want = []string{}
	}
	var got []discovery.Instance
	itest.Eventually(t, 20*time.Second, what+": ids "+strings.Join(want, ","), func() bool {
		got = list()
		return slices.Equal(ids(got), want)
	})
	return got
}

// query is QueryForInstances, failing the test on error.
func query(t *testing.T, d *discovery.Discovery, name string) []discovery.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := d.QueryForInstances(ctx, name)
	require.NoError(t, err)
	return l
}

// requireSame requires that got holds instances equal field for field to
// want, in any order.
func requireSame(t *testing.T, want, got []discovery.Instance) {
	t.Helper()
	require.Len(t, got, len(want), "got %v", got)
	for _, w := range want {
		found := false
		for _, g := range got {
			if g.Equal(w) {
				found = true
			}
		}
		require.True(t, found, "no instance equal to %v in %v", w, got)
	}
}

// recorder collects a cache's events.
type recorder struct {
	ch     <-chan discovery.Event
	cancel func()
}

func record(t *testing.T, ch *discovery.Cache) *recorder {
	events, cancel := ch.Events()
	t.Cleanup(cancel)
	return &recorder{ch: events, cancel: cancel}
}

// next waits for the next event.
func (r *recorder) next(t *testing.T, d time.Duration) discovery.Event {
	t.Helper()
	return itest.Await(t, r.ch, d, "cache event")
}

// none requires that no event arrives for quiet.
func (r *recorder) none(t *testing.T, quiet time.Duration) {
	t.Helper()
	itest.Pending(t, r.ch, quiet, "cache event")
}
