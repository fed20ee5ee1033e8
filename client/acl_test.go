package client

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestACLErr(t *testing.T) {
	assert.NoError(t, aclErr("get", "/a", nil))
	assert.Equal(t, zk.ErrNoNode, aclErr("get", "/a", zk.ErrNoNode))
	err := aclErr("create", "/a", zk.ErrNoAuth)
	var ae *ACLError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "create", ae.Op)
	assert.Equal(t, "/a", ae.Path)
	assert.ErrorIs(t, err, ErrNoAuth)
	assert.Same(t, err, aclErr("delete", "/b", err), "wrapped once")
	assert.ErrorIs(t, aclErr("create", "/a", zk.ErrInvalidACL), zk.ErrInvalidACL)
	assert.NotPanics(t, func() { _ = (&ACLError{}).Error() })
}

func TestACLProviderChoosesPerPath(t *testing.T) {
	readOnly := zk.WorldACL(zk.PermRead)
	c, err := New(WithServers("127.0.0.1:1"), WithDigestAuth("u", "p"), WithACLProvider(func(p string) []zk.ACL {
		if p == "/ro" {
			return readOnly
		}
		return nil
	}))
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, readOnly, c.aclFor("/ro"))
	assert.Equal(t, zk.AuthACL(zk.PermAll), c.aclFor("/other"), "empty: the client's default")
}
