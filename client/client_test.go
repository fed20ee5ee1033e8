package client

import (
	"context"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestNewRejectsBadOptions(t *testing.T) {
	cases := map[string][]Option{
		"no servers":       nil,
		"empty server":     {WithServers("")},
		"zero timeout":     {WithServers("127.0.0.1:1"), WithSessionTimeout(0)},
		"negative timeout": {WithServers("127.0.0.1:1"), WithSessionTimeout(-time.Second)},
		"nil policy":       {WithServers("127.0.0.1:1"), WithRetryPolicy(nil)},
		"nil dialer":       {WithServers("127.0.0.1:1"), WithDialer(nil)},
		"nil logger":       {WithServers("127.0.0.1:1"), WithLogger(nil)},
		"empty ACL":        {WithServers("127.0.0.1:1"), WithACL()},
		"no digest user":   {WithServers("127.0.0.1:1"), WithDigestAuth("", "pw")},
		"nil option":       {WithServers("127.0.0.1:1"), nil},
		"nil TLS config":   {WithServers("127.0.0.1:1"), WithTLS(nil)},
		"nil ACL provider": {WithServers("127.0.0.1:1"), WithACLProvider(nil)},
	}
	for name, opts := range cases {
		c, err := New(opts...)
		assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument, name)
		assert.Nil(t, c, name)
	}
	_, err := New(WithServers("127.0.0.1:1"), WithNamespace("a//b"))
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath)
}

func TestCallsBeforeStartAndAfterClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	c, err := New(WithServers("127.0.0.1:1"))
	require.NoError(t, err)

	_, err = c.WaitSession(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrNotStarted)
	_, _, err = c.Get(ctx, "/a")
	assert.ErrorIs(t, err, zkrecipes.ErrNotStarted)
	// Bad paths fail before anything else is looked at.
	_, _, err = c.Get(ctx, "a")
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath)

	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close is idempotent")
	assert.ErrorIs(t, c.Start(ctx), zkrecipes.ErrClosed)
	_, _, err = c.Get(ctx, "/a")
	assert.ErrorIs(t, err, zkrecipes.ErrClosed)
	_, err = c.Create(ctx, "/a", nil, zk.FlagEphemeral)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed)
	_, err = c.CreateProtected(ctx, "/a/lock-", nil, zk.FlagEphemeralSequential)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed)
	ch, cancel := c.Subscribe()
	cancel()
	_, open := <-ch
	assert.False(t, open, "a subscription after Close is closed")
}

func TestStartHonoursContext(t *testing.T) {
	defer goleak.VerifyNone(t)
	// Nothing listens on port 1: Start must return when ctx ends, not hang.
	c, err := New(WithServers("127.0.0.1:1"), WithSessionTimeout(time.Second))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = c.Start(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Nil(t, c.Session())
	require.NoError(t, c.Close())
}

func TestNilClient(t *testing.T) {
	var c *Client
	ctx := context.Background()
	assert.ErrorIs(t, c.Start(ctx), zkrecipes.ErrInvalidArgument)
	assert.ErrorIs(t, c.Close(), zkrecipes.ErrInvalidArgument)
	_, _, err := c.Get(ctx, "/a")
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	assert.ErrorIs(t, c.Do(ctx, func(context.Context) error { return nil }), zkrecipes.ErrInvalidArgument)
	_, err = c.WaitSession(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = c.Conn(ctx)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = c.CreateProtected(ctx, "/a/x", nil, zk.FlagEphemeral)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	assert.Equal(t, State(0), c.State())
	assert.Nil(t, c.Session())
	assert.Zero(t, c.SessionTimeout())
	assert.Empty(t, c.Namespace())
	assert.NotNil(t, c.logger())
	ch, cancel := c.Subscribe()
	cancel()
	_, open := <-ch
	assert.False(t, open)
}

func TestCreateProtectedNeedsAName(t *testing.T) {
	c, err := New(WithServers("127.0.0.1:1"))
	require.NoError(t, err)
	defer c.Close()
	_, err = c.CreateProtected(context.Background(), "/", nil, zk.FlagEphemeral)
	assert.ErrorIs(t, err, zkrecipes.ErrInvalidPath)
}
