package integration

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

// The client always comes back. A server
// name that does not resolve (a ZooKeeper pod that is down has no DNS
// record) is a failed dial, retried, at Start and after a local expiry.

// clFakeName is a dialer that knows one made-up server name. While resolves
// is set it dials the real address behind the name (through via when given);
// otherwise it fails as a name without a DNS record does. go-zookeeper's own
// host provider would look the name up in real DNS before any dial, and fail.
type clFakeName struct {
	name     string // "zk-a.invalid:PORT"
	real     string
	via      func(network, addr string, timeout time.Duration) (net.Conn, error)
	resolves atomic.Bool
	misses   atomic.Int64 // dials refused for want of a record
}

func clNewFakeName(t testing.TB, real string) *clFakeName {
	_, port, err := net.SplitHostPort(real)
	require.NoError(t, err)
	return &clFakeName{name: net.JoinHostPort("zk-a.invalid", port), real: real}
}

func (f *clFakeName) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	if addr != f.name || !f.resolves.Load() {
		f.misses.Add(1)
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if f.via != nil {
		return f.via(network, f.real, timeout)
	}
	return net.DialTimeout(network, f.real, timeout)
}

// TestClientStartWaitsForName: Start with a name that does not resolve
// keeps dialing until ctx ends (and says so with ctx's error, not as a bad
// argument), and succeeds once the name resolves.
func TestClientStartWaitsForName(t *testing.T) {
	noLeaks(t)
	f := clNewFakeName(t, shared.Addr(0))
	newClient := func() *client.Client {
		c, err := client.New(client.WithServers(f.name), client.WithDialer(f.dial),
			client.WithSessionTimeout(4*time.Second), client.WithNamespace(namespace(t)))
		require.NoError(t, err, "a name that does not resolve is not an invalid argument")
		t.Cleanup(func() { _ = c.Close() })
		return c
	}

	c := newClient()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	err := c.Start(ctx)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, errors.Is(err, zkrecipes.ErrInvalidArgument), "err: %v", err)
	require.NoError(t, c.Close())

	c = newClient()
	before := f.misses.Load()
	flip := time.AfterFunc(time.Second, func() { f.resolves.Store(true) })
	t.Cleanup(func() { flip.Stop() })
	start := time.Now()
	require.NoError(t, c.Start(ctxT(t, 30*time.Second)))
	t.Logf("Start returned %v after it began; the name resolved after 1s; %d dials failed meanwhile",
		time.Since(start).Round(time.Millisecond), f.misses.Load()-before)
	require.Positive(t, f.misses.Load()-before, "the first dials failed")
	_, err = c.Create(ctxT(t, 10*time.Second), "/alive", nil, 0)
	require.NoError(t, err)
}

// TestClientRedialsAfterLocalExpiry: a client whose link is cut past its
// session gives the session up (local expiry) while its server's name does
// not resolve; once the name resolves and the link is back, a new session
// comes (Reconnected) and a lock can be taken again, with no deadline but
// the test's.
func TestClientRedialsAfterLocalExpiry(t *testing.T) {
	noLeaks(t)
	const timeout = 2 * time.Second
	link := newLink(t)
	f := clNewFakeName(t, shared.Addr(0))
	f.via = link.Dial
	f.resolves.Store(true)
	c := connect(t, clientOpts{ns: namespace(t), timeout: timeout,
		extra: []client.Option{client.WithServers(f.name), client.WithDialer(f.dial)}})
	ctx := ctxT(t, 2*time.Minute)

	held, err := mutex.New(c, "/lock")
	require.NoError(t, err)
	require.NoError(t, held.Lock(ctx))
	sid := c.Session().ID()
	events, cancel := c.Subscribe()
	defer cancel()

	f.resolves.Store(false)
	link.Cut()
	cutAt := time.Now()
	clExpect(t, events, client.StateSuspended, sid, 10*time.Second)
	lost := clExpect(t, events, client.StateLost, sid, 4*timeout)
	<-held.Lost()
	missesAtLost := f.misses.Load()

	// Stay unresolvable a while after the local expiry: the redial must keep trying.
	time.Sleep(3 * time.Second)
	missesAfter := f.misses.Load() - missesAtLost
	require.Positive(t, missesAfter, "no dial after the local expiry")
	require.Equal(t, client.StateLost, c.State())

	f.resolves.Store(true)
	link.Restore()
	backAt := time.Now()
	ev := clNext(t, events, 30*time.Second)
	require.Equal(t, client.StateReconnected, ev.State, clDescribe(ev))
	require.NotEqual(t, sid, ev.SessionID, "a new session")
	t.Logf("Lost %v after the cut; %d failed dials in the 3s after it; Reconnected (new session) %v after the name resolved again",
		lost.Time.Sub(cutAt).Round(time.Millisecond), missesAfter, ev.Time.Sub(backAt).Round(time.Millisecond))

	again, err := mutex.New(c, "/lock")
	require.NoError(t, err)
	require.NoError(t, again.Lock(ctx), "a lock on the new session")
	require.NoError(t, again.Unlock(ctx))
}
