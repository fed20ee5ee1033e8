package counterit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/counter"
)

// TestBadInputLeavesNothing: bad paths, a nil client, nil and zero
// options are refused by New with typed errors; reads, a compare-and-set
// on a counter never written, calls with a context already ended and calls
// after the client closed fail (or answer) without writing: nothing is
// left on the server, not even the namespace's root.
func TestBadInputLeavesNothing(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	root := itest.Connect(t, shared, itest.Opts{})
	c := itest.Connect(t, shared, itest.Opts{NS: ns})
	ctx := itest.Ctx(t, 30*time.Second)

	_, err := counter.New(nil, "/counter")
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	for _, p := range []string{"", "counter", "/counter/", "/a//b", "/zookeeper/c", "/a/../b", "/a\x00b"} {
		_, err := counter.New(c, p)
		var pe *client.PathError
		require.ErrorAs(t, err, &pe, "path %q", p)
		_, err = counter.New(c, "/counter", counter.WithPromotedLock(counter.PromotedLock{Path: p}))
		require.ErrorIs(t, err, zkrecipes.ErrInvalidPath, "lock path %q", p)
	}
	for what, opt := range map[string]counter.Option{
		"nil option":         nil,
		"nil retry policy":   counter.WithRetryPolicy(nil),
		"zero promoted lock": counter.WithPromotedLock(counter.PromotedLock{}),
		"negative timeout":   counter.WithPromotedLock(counter.PromotedLock{Path: "/lock", Timeout: -1}),
	} {
		_, err := counter.New(c, "/counter", opt)
		require.Error(t, err, what)
		require.True(t, errors.Is(err, zkrecipes.ErrInvalidArgument) || errors.Is(err, zkrecipes.ErrInvalidPath), "%s: %v", what, err)
	}

	dal := newCounter(t, c, "/deep/counter")
	r, err := dal.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, counter.Result{Succeeded: true, Version: -1}, r, "a missing counter reads as 0")
	r, err = dal.CompareAndSet(ctx, 0, 1)
	require.NoError(t, err)
	require.False(t, r.Succeeded)

	done, cancel := context.WithCancel(ctx)
	cancel()
	for what, err := range map[string]error{
		"Increment":  second(dal.Increment(done)),
		"TrySet":     second(dal.TrySet(done, 1)),
		"ForceSet":   dal.ForceSet(done, 1),
		"Initialize": second(dal.Initialize(done, 1)),
	} {
		require.ErrorIs(t, err, context.Canceled, what)
		require.NotErrorIs(t, err, counter.ErrMaybeApplied, "%s: nothing was sent", what)
	}

	closed := itest.Connect(t, shared, itest.Opts{NS: ns})
	late := newCounter(t, closed, "/late")
	require.NoError(t, closed.Close())
	for what, err := range map[string]error{
		"Get":           second(late.Get(ctx)),
		"Increment":     second(late.Increment(ctx)),
		"CompareAndSet": second(late.CompareAndSet(ctx, 0, 1)),
		"ForceSet":      late.ForceSet(ctx, 1),
		"Initialize":    second(late.Initialize(ctx, 1)),
	} {
		require.ErrorIs(t, err, zkrecipes.ErrClosed, what)
		require.NotErrorIs(t, err, counter.ErrMaybeApplied, what)
	}

	require.False(t, itest.Exists(t, root, ns), "nothing was written, not even the namespace")
}

func second[T any](_ T, err error) error { return err }

// TestACLRefusalIsTyped: a counter only its owner may write (others may
// read) refuses another identity's updates at once with a *client.ACLError,
// never a retry or a maybe, and the value is unchanged; reads still work.
func TestACLRefusalIsTyped(t *testing.T) {
	itest.NoLeaks(t)
	ns := itest.Namespace(t)
	ctx := itest.Ctx(t, 30*time.Second)
	// Only the counter's own node is the owner's: the parents it makes stay
	// open to all, so that other tests on this server can make theirs.
	owner := itest.Connect(t, shared, itest.Opts{NS: ns, Extra: []client.Option{
		client.WithDigestAuth("owner", "secret"), client.WithACL(zk.WorldACL(zk.PermAll)...),
		client.WithACLProvider(func(p string) []zk.ACL {
			if strings.HasSuffix(p, "/counter") {
				return client.CreatorAllWorldReadACL()
			}
			return nil
		})}})
	other := itest.Connect(t, shared, itest.Opts{NS: ns, Extra: []client.Option{client.WithDigestAuth("other", "secret")}})
	mine := newCounter(t, owner, "/counter")
	r, err := mine.Add(ctx, 5)
	requireResult(t, r, err, 0, 5, 1, 0)

	theirs := newCounter(t, other, "/counter")
	for what, call := range map[string]func() (counter.Result, error){
		"Increment": func() (counter.Result, error) { return theirs.Increment(ctx) },
		"TrySet":    func() (counter.Result, error) { return theirs.TrySet(ctx, 9) },
		"CompareAndSet": func() (counter.Result, error) {
			return theirs.CompareAndSet(ctx, 5, 9)
		},
	} {
		r, err := call()
		var ae *client.ACLError
		require.ErrorAs(t, err, &ae, what)
		require.ErrorIs(t, err, client.ErrNoAuth, what)
		require.NotErrorIs(t, err, counter.ErrMaybeApplied, what)
		require.False(t, r.Succeeded, what)
		require.Equal(t, 1, r.Stats.OptimisticTries, "%s: one try, no retry", what)
	}
	require.Error(t, theirs.ForceSet(ctx, 9))
	v, version := value(t, ctx, theirs)
	require.EqualValues(t, 5, v, "nothing the other identity tried was applied")
	require.EqualValues(t, 1, version)
}
