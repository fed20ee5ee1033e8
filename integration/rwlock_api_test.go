package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/recipes/mutex"
	"github.com/go-zkrecipes/zkrecipes/recipes/rwlock"
)

// TestRWLockReentrancy: reentrancy through the holdings' contexts; each side
// of a handle counts its own levels, and only the last release of a side
// gives that side up.
func TestRWLockReentrancy(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.Lock(ctx))
	wctx, wcancel := a.WriteLock().Context(ctx)
	defer wcancel()
	require.NoError(t, a.Lock(wctx))
	require.NoError(t, a.TryLock(wctx))
	require.NoError(t, a.RLock(wctx)) // read under write: a node at the writer's place
	rctx, rcancel := a.ReadLock().Context(wctx)
	defer rcancel()
	require.NoError(t, a.RLock(rctx))
	require.NoError(t, a.Lock(rctx), "more writes while also reading: reentrant, not an upgrade")
	require.Len(t, children(t, obs, rwDir), 2, "one node per side, whatever the counts")

	for i := 0; i < 3; i++ {
		require.NoError(t, a.Unlock(ctx))
		require.True(t, a.WriteLock().IsHeld(), "write released after %d of 4 unlocks", i+1)
		require.ErrorIs(t, b.TryRLock(ctx), zkrecipes.ErrLocked)
	}
	require.NoError(t, a.Unlock(ctx))
	require.False(t, a.WriteLock().IsHeld())
	require.ErrorIs(t, a.Unlock(ctx), zkrecipes.ErrNotHeld)
	require.True(t, a.ReadLock().IsHeld())
	require.Len(t, children(t, obs, rwDir), 1)

	// Only the downgraded read is left: readers share it, writers wait.
	require.NoError(t, b.TryRLock(ctx))
	require.NoError(t, b.RUnlock(ctx))
	require.ErrorIs(t, b.TryLock(ctx), zkrecipes.ErrLocked)

	require.NoError(t, a.RUnlock(ctx))
	require.True(t, a.ReadLock().IsHeld(), "read released after 1 of 2 unlocks")
	require.NoError(t, a.RUnlock(ctx))
	require.False(t, a.ReadLock().IsHeld())
	require.ErrorIs(t, a.RUnlock(ctx), zkrecipes.ErrNotHeld)
	require.Empty(t, children(t, obs, rwDir))
	require.NoError(t, b.TryLock(ctx))
	require.NoError(t, b.Unlock(ctx))
}

// TestRWLockLostAndToken: each side has its own Lost channel; a read taken
// under the write holding carries the writer's token; the tokens of
// successive holders grow.
func TestRWLockLostAndToken(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, _ := rwHandle(t, clientOpts{ns: ns})
	ws, rs := a.WriteLock(), a.ReadLock()

	for _, s := range []*mutex.Mutex{ws, rs} {
		require.True(t, closed(s.Lost()), "Lost of a side that does not hold")
		require.Zero(t, mxTok(s))
		require.Empty(t, s.Node())
	}

	require.NoError(t, a.Lock(ctx))
	require.False(t, closed(ws.Lost()), "write Lost while held")
	require.True(t, closed(rs.Lost()), "read Lost while only the write side holds")
	wTok := mxTok(ws)
	require.Positive(t, wTok)
	require.Zero(t, mxTok(rs))
	require.NotEmpty(t, ws.Node())

	wctx, wcancel := ws.Context(ctx)
	defer wcancel()
	require.NoError(t, a.RLock(wctx))
	rTok := mxTok(rs)
	require.Equal(t, wTok, rTok, "a read taken under the write holding continues it, with its token")
	wLost, rLost := ws.Lost(), rs.Lost()
	require.False(t, closed(wLost), "write Lost")
	require.False(t, closed(rLost), "read Lost")

	require.NoError(t, a.Unlock(ctx))
	require.True(t, closed(wLost), "write Lost after Unlock")
	require.False(t, closed(rLost), "read Lost after the write side's Unlock")
	require.Zero(t, mxTok(ws))
	require.Equal(t, rTok, mxTok(rs))

	require.NoError(t, a.RUnlock(ctx))
	require.True(t, closed(rLost), "read Lost after RUnlock")
	require.Zero(t, mxTok(rs))

	require.NoError(t, b.Lock(ctx))
	require.Greater(t, mxTok(b.WriteLock()), rTok, "a later holder has a larger token")
	require.NoError(t, b.Unlock(ctx))
	require.NoError(t, b.RLock(ctx))
	require.Greater(t, mxTok(b.ReadLock()), rTok)
	require.NoError(t, b.RUnlock(ctx))
}

// TestRWLockTry: TryRLock behind a writer (holding or waiting) and TryLock
// behind anyone return ErrLocked at once and leave no node.
func TestRWLockTry(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	a, _ := rwHandle(t, clientOpts{ns: ns})
	b, _ := rwHandle(t, clientOpts{ns: ns})
	c, _ := rwHandle(t, clientOpts{ns: ns})

	require.NoError(t, a.Lock(ctx))
	require.ErrorIs(t, b.TryRLock(ctx), zkrecipes.ErrLocked)
	require.ErrorIs(t, b.ReadLock().TryLock(ctx), zkrecipes.ErrLocked)
	require.ErrorIs(t, b.TryLock(ctx), zkrecipes.ErrLocked)
	require.False(t, b.ReadLock().IsHeld())
	require.False(t, b.WriteLock().IsHeld())
	require.Len(t, children(t, obs, rwDir), 1, "a failed try left a node")
	require.NoError(t, a.Unlock(ctx))

	// A reader holds and a writer waits: a new reader may not jump the writer.
	require.NoError(t, a.RLock(ctx))
	bGot := rwAsync(ctx, b.Lock)
	waitChildren(t, obs, rwDir, 2)
	require.ErrorIs(t, c.TryRLock(ctx), zkrecipes.ErrLocked, "a writer is queued ahead")
	require.Len(t, children(t, obs, rwDir), 2)
	require.NoError(t, a.RUnlock(ctx))
	require.NoError(t, await(t, bGot, rwPatience, "writer b"))
	require.NoError(t, b.Unlock(ctx))
	require.NoError(t, c.TryRLock(ctx))
	require.NoError(t, c.RUnlock(ctx))
}

// TestRWLockBadInput: nil handles, nil sides and bad arguments give errors,
// never panics.
func TestRWLockBadInput(t *testing.T) {
	noLeaks(t)
	ctx := ctxT(t, 10*time.Second)
	c := connect(t, clientOpts{ns: namespace(t)})

	_, err := rwlock.New(nil, rwDir)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	for _, p := range []string{"", "/", "rw", "/rw/", "/a//b"} {
		_, err := rwlock.New(c, p)
		require.Error(t, err, "path %q", p)
	}
	_, err = rwlock.New(c, rwDir, nil)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)

	// Zero values (not nil pointers: those are programming errors, as with
	// a nil *sync.RWMutex) answer every call with a typed error.
	rw := &rwlock.RWMutex{}
	for name, f := range map[string]func(context.Context) error{
		"Lock": rw.Lock, "TryLock": rw.TryLock, "Unlock": rw.Unlock,
		"RLock": rw.RLock, "TryRLock": rw.TryRLock, "RUnlock": rw.RUnlock,
	} {
		require.ErrorIs(t, f(ctx), zkrecipes.ErrInvalidArgument, "zero handle's %s", name)
	}
	_, err = rw.Participants(ctx)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	require.Empty(t, rw.Path())
	require.ErrorIs(t, rw.Downgrade(ctx), zkrecipes.ErrInvalidArgument)
	require.False(t, rw.ReadLock().IsHeld())
	require.False(t, rw.WriteLock().IsHeld())

	s := &mutex.Mutex{}
	require.ErrorIs(t, s.Lock(ctx), zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, s.TryLock(ctx), zkrecipes.ErrInvalidArgument)
	require.ErrorIs(t, s.Unlock(ctx), zkrecipes.ErrInvalidArgument)
	require.False(t, s.IsHeld())
	require.True(t, closed(s.Lost()), "zero side's Lost")
	require.Zero(t, mxTok(s))
	require.Empty(t, s.Node())

	// Releasing what was never taken.
	h, err := rwlock.New(c, rwDir)
	require.NoError(t, err)
	require.Equal(t, rwDir, h.Path())
	require.ErrorIs(t, h.Unlock(ctx), zkrecipes.ErrNotHeld)
	require.ErrorIs(t, h.RUnlock(ctx), zkrecipes.ErrNotHeld)
	parts, err := h.Participants(ctx)
	require.NoError(t, err)
	require.Empty(t, parts, "no directory yet")
}
