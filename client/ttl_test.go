package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestTTLArgumentsRefused: the TTL creates refuse bad flags, a TTL out of
// ZooKeeper's range and a bad path with a typed error, before any I/O (the
// client has no server and is never started).
func TestTTLArgumentsRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	c, err := New(WithServers("127.0.0.1:1"))
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	creates := map[string]func(path string, flags int32, ttl time.Duration) error{
		"CreateTTL": func(p string, f int32, ttl time.Duration) error {
			_, err := c.Create(ctx, p, nil, f, WithTTL(ttl))
			return err
		},
		"CreateTTLWithParents": func(p string, f int32, ttl time.Duration) error {
			_, err := c.Create(ctx, p, nil, f, WithTTL(ttl), WithParents())
			return err
		},
		"CreateProtectedTTL": func(p string, f int32, ttl time.Duration) error {
			_, err := c.CreateProtected(ctx, p, nil, f, WithTTL(ttl))
			return err
		},
	}
	for name, create := range creates {
		for _, f := range []int32{zk.FlagPersistent, zk.FlagEphemeral, zk.FlagSequence, zk.FlagEphemeralSequential, zk.FlagContainer, 7, -1} {
			assert.ErrorIs(t, create("/t", f, time.Second), zkrecipes.ErrInvalidArgument, "%s flags %d", name, f)
		}
		for _, ttl := range []time.Duration{0, -time.Second, time.Millisecond - 1, MaxTTL + time.Millisecond} {
			assert.ErrorIs(t, create("/t", zk.FlagTTL, ttl), zkrecipes.ErrInvalidArgument, "%s ttl %v", name, ttl)
		}
		var pe *PathError
		err := create("t", zk.FlagTTL, time.Second)
		assert.True(t, errors.As(err, &pe), "%s relative path: %v", name, err)
		// Valid arguments get as far as the client's state: not started.
		assert.ErrorIs(t, create("/t", zk.FlagPersistentSequentialWithTTL, MaxTTL), zkrecipes.ErrNotStarted, name)
	}
	assert.Zero(t, c.PendingDeletes())
}
