package multilockit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
)

// TestLostWhenOneLockGoes: an operator deletes the node of one lock of a
// held set: the set's Lost closes (IsHeld false, that path's Token says
// ErrLost), another process gets the set once it is released, and the
// release says ErrLost, having deleted the other lock's node all the same.
func TestLostWhenOneLockGoes(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	raw := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 30*time.Second)
	m := newMulti(t, c, "/jobs/a", "/jobs/b")
	require.NoError(t, m.Lock(ctx))
	tokens, err := m.Tokens(ctx)
	require.NoError(t, err)
	require.Positive(t, tokens["/jobs/a"])
	require.Positive(t, tokens["/jobs/b"])
	lost := m.Lost()
	kids := children(t, ctx, raw, "/jobs/b")
	require.Len(t, kids, 1)
	require.NoError(t, raw.Delete(ctx, "/jobs/b/"+kids[0], -1))
	require.True(t, itest.WaitClosed(lost, 10*time.Second), "Lost closed when one lock went")
	require.False(t, m.IsHeld())
	_, err = m.Token(ctx, "/jobs/b")
	require.ErrorIs(t, err, zkrecipes.ErrLost)
	require.ErrorIs(t, m.Unlock(ctx), zkrecipes.ErrLost)
	require.Empty(t, children(t, ctx, raw, "/jobs/a"), "the other lock's node was deleted")
	other := newMulti(t, raw, "/jobs/b", "/jobs/a")
	require.NoError(t, other.TryLock(ctx))
	require.NoError(t, other.Unlock(ctx))
}
