package integration

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
)

func TestMutexSmoke(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	c1 := connect(t, clientOpts{ns: ns})
	c2 := connect(t, clientOpts{ns: ns})
	ctx := ctxT(t, 30*time.Second)
	a, err := mutex.New(c1, "/lock")
	require.NoError(t, err)
	b, err := mutex.New(c2, "/lock")
	require.NoError(t, err)
	require.NoError(t, a.Lock(ctx))
	require.ErrorIs(t, b.TryLock(ctx), zkrecipes.ErrLocked)
	got := make(chan error, 1)
	go func() { got <- b.Lock(ctx) }()
	time.Sleep(200 * time.Millisecond)
	tokA := mxTok(a)
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, <-got)
	require.Greater(t, mxTok(b), tokA)
	require.NoError(t, b.Unlock(ctx))
}
