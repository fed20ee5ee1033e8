package client

import (
	"errors"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMultiFailedOp: a refused transaction's error names its first failed
// op by index, kind and path as given, and unwraps to the server's answer;
// results that name no op leave the error as it was.
func TestMultiFailedOp(t *testing.T) {
	ops := []any{
		&zk.CreateRequest{Path: "/a"},
		&zk.SetDataRequest{Path: "/b", Version: -1},
		&zk.CheckVersionRequest{Path: "/c", Version: 3},
		&zk.DeleteRequest{Path: "/d", Version: -1},
	}
	res := []zk.MultiResponse{{}, {}, {Error: zk.ErrBadVersion}, {Error: zk.ErrAPIError}}
	err := failedOp(ops, res, zk.ErrBadVersion)
	var oe *OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, OpError{Index: 2, Op: "check", Path: "/c", Err: zk.ErrBadVersion}, *oe)
	assert.ErrorIs(t, err, zk.ErrBadVersion)
	assert.Equal(t, "zkrecipes: transaction op 2 (check /c): zk: version conflict", err.Error())

	assert.NoError(t, failedOp(ops, nil, nil))
	assert.Same(t, zk.ErrConnectionClosed, failedOp(ops, nil, zk.ErrConnectionClosed), "no results: unchanged")
	other := errors.New("other")
	assert.Same(t, other, failedOp(ops[:1], []zk.MultiResponse{{}, {Error: zk.ErrNoNode}}, other), "a result past the ops")

	for i, kind := range []string{"create", "set", "check", "delete"} {
		k, _ := opKind(ops[i])
		assert.Equal(t, kind, k)
	}
	k, p := opKind((*zk.CreateRequest)(nil))
	assert.Empty(t, k+p)
	assert.NotPanics(t, func() { _ = (&OpError{}).Error() })
}

// TestMultiACLRefusalNamesOp: a transaction the ACLs refused is an
// *ACLError of "multi" on the failing op's path, wrapping its *OpError.
func TestMultiACLRefusalNamesOp(t *testing.T) {
	ops := []any{&zk.CreateRequest{Path: "/a"}, &zk.SetDataRequest{Path: "/locked", Version: -1}}
	err := failedOp(ops, []zk.MultiResponse{{}, {Error: zk.ErrNoAuth}}, zk.ErrNoAuth)
	err = aclErr("multi", err.(*OpError).Path, err)
	var ae *ACLError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "multi", ae.Op)
	assert.Equal(t, "/locked", ae.Path)
	var oe *OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 1, oe.Index)
	assert.ErrorIs(t, err, ErrNoAuth)
}
