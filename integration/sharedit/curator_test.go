package sharedit

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/shared"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// The ports of Curator's TestSharedCount, one Go test per Java test, named
// as Curator names them. Curator's SharedCount is a SharedValue of 4
// bytes, as Count is a Bytes here: these exercise both.

// TestMultiClients: five clients, each with its own count on /count and a
// subscription; a sixth sets 100 random values, waiting after each until
// all five have seen it; every client saw exactly that list, in order.
// Then the same on the 3-server ensemble, the clients on its servers in
// turn.
func TestMultiClients(t *testing.T) {
	itest.NoLeaks(t)
	multiClients(t, one, 100)
}

func multiClients(t *testing.T, cl *zktest.Cluster, sets int) {
	const clients = 5
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 2*time.Minute)
	type reader struct {
		ch   <-chan shared.Value
		seen []int32
	}
	readers := make([]*reader, clients)
	for i := range readers {
		c := itest.Connect(t, cl, itest.Opts{NS: ns, Extra: []client.Option{client.WithServers(rotate(cl.Addrs(), i)...)}})
		cnt := startCount(t, c, "/count", 10)
		ch, cancel := cnt.Events()
		t.Cleanup(cancel)
		readers[i] = &reader{ch: ch}
	}
	writer := startCount(t, itest.Connect(t, cl, itest.Opts{NS: ns}), "/count", 10)
	var want []int32
	rng := rand.New(rand.NewPCG(1, 2))
	for range sets {
		time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
		next := int32(rng.IntN(100))
		want = append(want, next)
		require.NoError(t, writer.Set(ctx, next))
		for i, r := range readers {
			v := itest.Await(t, r.ch, 10*time.Second, "client's change")
			r.seen = append(r.seen, v.Count)
			require.Equal(t, next, v.Count, "client %d", i)
		}
	}
	for i, r := range readers {
		require.Equal(t, want, r.seen, "client %d saw every value, in order", i)
	}
}

// rotate returns addrs starting at index i.
func rotate(addrs []string, i int) []string {
	i %= len(addrs)
	return append(append([]string(nil), addrs[i:]...), addrs[:i]...)
}

// TestSimple: compare-and-set three times from the values read.
func TestSimple(t *testing.T) {
	itest.NoLeaks(t)
	cnt := startCount(t, itest.Connect(t, one, itest.Opts{NS: itest.Namespace(t)}), "/count", 0)
	ctx := itest.Ctx(t, 30*time.Second)
	for _, n := range []int32{1, 2, 10} {
		ok, err := cnt.TrySet(ctx, count(t, cnt), n)
		require.NoError(t, err)
		require.True(t, ok)
	}
	require.Equal(t, int32(10), count(t, cnt).Count)
}

// TestSimpleVersioned: each TrySet from the current value moves the
// version by one; a made-up reading with the right version but the wrong
// value fails, so does one with the wrong version, and so does the last
// reading once another client changed the node.
func TestSimpleVersioned(t *testing.T) {
	itest.NoLeaks(t)
	c := itest.Connect(t, one, itest.Opts{NS: itest.Namespace(t)})
	cnt := startCount(t, c, "/count", 0)
	ctx := itest.Ctx(t, 30*time.Second)
	current := count(t, cnt)
	require.Zero(t, current.Version)
	for i, n := range []int32{1, 5, 10} {
		ok, err := cnt.TrySet(ctx, current, n)
		require.NoError(t, err)
		require.True(t, ok)
		current = count(t, cnt)
		require.Equal(t, int32(i+1), current.Version)
		require.Equal(t, n, current.Count)
	}
	ok, err := cnt.TrySet(ctx, shared.Value{Version: 3, Count: 20}, 7)
	require.NoError(t, err)
	require.False(t, ok, "wrong value")
	ok, err = cnt.TrySet(ctx, shared.Value{Version: 10, Count: 10}, 7)
	require.NoError(t, err)
	require.False(t, ok, "wrong version")
	_, err = c.Set(ctx, "/count", []byte{0, 0, 0, 88}, -1)
	require.NoError(t, err)
	ok, err = cnt.TrySet(ctx, current, 234)
	require.NoError(t, err)
	require.False(t, ok, "the server changed")
	itest.Eventually(t, 10*time.Second, "the server's value read", func() bool {
		v, err := cnt.Get()
		return err == nil && v.Count == 88
	})
}

// TestMultiClientVersioned: two clients take turns; a TrySet from a
// reading the other client has overtaken fails, and succeeds once read
// again.
func TestMultiClientVersioned(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 30*time.Second)
	count1 := startCount(t, itest.Connect(t, one, itest.Opts{NS: ns}), "/count", 0)
	count2 := startCount(t, itest.Connect(t, one, itest.Opts{NS: ns}), "/count", 0)
	ok, err := count1.TrySet(ctx, count(t, count1), 10)
	require.NoError(t, err)
	require.True(t, ok)
	itest.Eventually(t, 10*time.Second, "count2 reads 10", func() bool { return count(t, count2).Count == 10 })
	ok, err = count2.TrySet(ctx, count(t, count2), 20)
	require.NoError(t, err)
	require.True(t, ok)
	itest.Eventually(t, 10*time.Second, "count1 reads 20", func() bool { return count(t, count1).Count == 20 })

	v1, v2 := count(t, count1), count(t, count2)
	ok, err = count2.TrySet(ctx, v2, 30)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = count1.TrySet(ctx, v1, 40)
	require.NoError(t, err)
	require.False(t, ok)
	ok, err = count1.TrySet(ctx, count(t, count1), 40)
	require.NoError(t, err)
	require.True(t, ok, "TrySet read the newer value when it failed")
}

// TestMultiClientDifferentSeed: the first seed wins; the second count reads it.
func TestMultiClientDifferentSeed(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	count1 := startCount(t, itest.Connect(t, one, itest.Opts{NS: ns}), "/count", 10)
	count2 := startCount(t, itest.Connect(t, one, itest.Opts{NS: ns}), "/count", 20)
	require.Equal(t, int32(10), count(t, count1).Count)
	require.Equal(t, int32(10), count(t, count2).Count)
}

// TestDisconnectReconnectEventDoesNotFireValueWatcher (and, on the way,
// TestDisconnectEventOnWatcherDoesNotRetry): on a server of its own, a
// count sets 11, the server stops (the client suspends promptly: the
// count's watcher holds up nothing) and starts again; after the reconnect
// a TrySet of 12 from the value read succeeds. The subscription received
// exactly two changes, 11 and 12: the reconnect itself is no change.
func TestDisconnectReconnectEventDoesNotFireValueWatcher(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t)
	c := itest.Connect(t, cl, itest.Opts{NS: itest.Namespace(t), Timeout: 10 * time.Second})
	ctx := itest.Ctx(t, time.Minute)
	states, stopStates := c.Subscribe()
	defer stopStates()
	cnt := startCount(t, c, "/count", 10)
	changes, cancel := cnt.Events()
	defer cancel()

	require.NoError(t, cnt.Set(ctx, 11))
	require.Equal(t, int32(11), itest.Await(t, changes, 2*time.Second, "the change to 11").Count)
	sid := c.Session().ID()
	require.NoError(t, cl.StopServer(ctx, 0))
	itest.WaitState(t, states, client.StateSuspended, sid, 5*time.Second)
	require.NoError(t, cl.StartServer(ctx, 0))
	itest.WaitState(t, states, client.StateReconnected, sid, 20*time.Second)

	ok, err := cnt.TrySet(ctx, count(t, cnt), 12)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int32(12), itest.Await(t, changes, 5*time.Second, "the change to 12").Count)
	itest.Pending(t, changes, 500*time.Millisecond, "a change from the reconnect")
}
