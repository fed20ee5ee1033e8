package client

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestHostListKeepsNamesAndGoesRound(t *testing.T) {
	var h hostList
	servers := []string{"zk-a.invalid:2181", "zk-b.invalid:2181", "zk-c.invalid:2181"}
	require.NoError(t, h.Init(servers), "Init resolves nothing, so unknown names are fine")
	assert.Equal(t, 3, h.Len())

	seen := map[string]bool{}
	for i := range 3 {
		s, retry := h.Next()
		assert.False(t, retry, "first round, attempt %d", i)
		seen[s] = true
	}
	assert.Len(t, seen, 3, "one round visits every server")
	_, retry := h.Next()
	assert.True(t, retry, "a full round without a connection")

	h.Connected()
	for range 2 {
		_, retry = h.Next()
		assert.False(t, retry)
	}
	_, retry = h.Next()
	assert.True(t, retry, "back at the server last connected to")

	assert.Error(t, (&hostList{}).Init(nil))
}

func TestCheckServer(t *testing.T) {
	for _, ok := range []string{"zk", "zk:2181", "10.0.0.1:1", "[::1]:2181", "zk-a.invalid:65535"} {
		assert.NoError(t, checkServer(ok), ok)
	}
	for _, bad := range []string{"", "  ", ":2181", "zk:", "zk:abc", "zk:0", "zk:70000", "a:b:c", "::1"} {
		assert.ErrorIs(t, checkServer(bad), zkrecipes.ErrInvalidArgument, bad)
		_, err := New(WithServers("127.0.0.1:2181", bad))
		assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, bad)
	}
}

// TestStartRetriesUnresolvableName: a name that does not resolve is a
// failed dial, retried until ctx ends; Start then reports ctx's error.
func TestStartRetriesUnresolvableName(t *testing.T) {
	defer goleak.VerifyNone(t)
	var mu sync.Mutex
	var dialed []string
	dialer := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		return nil, &net.DNSError{Err: "no such host", Name: "zk-a.invalid", IsNotFound: true}
	}
	c, err := New(WithServers("zk-a.invalid:2181"), WithDialer(dialer), WithSessionTimeout(time.Second))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	err = c.Start(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, errors.Is(err, zkrecipes.ErrInvalidArgument), "not a configuration error: %v", err)
	require.NoError(t, c.Close())
	mu.Lock()
	defer mu.Unlock()
	assert.GreaterOrEqual(t, len(dialed), 2, "the dial was retried")
	for _, a := range dialed {
		assert.Equal(t, "zk-a.invalid:2181", a, "the dialer gets the name, not an address")
	}
}
