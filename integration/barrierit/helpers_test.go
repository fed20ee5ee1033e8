package barrierit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/barrier"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// rig is one test's view of a cluster: its namespace, a client with no
// fault link to look at the server, and the test's context.
type rig struct {
	t   *testing.T
	cl  *zktest.Cluster
	ns  string
	c   *client.Client // the observer
	ctx context.Context
}

// newRig makes a rig on cl (the shared server when nil); the test's
// context ends after d.
func newRig(t *testing.T, cl *zktest.Cluster, d time.Duration) *rig {
	if cl == nil {
		cl = shared
	}
	ns := itest.Namespace(t)
	return &rig{t: t, cl: cl, ns: ns, c: itest.Connect(t, cl, itest.Opts{NS: ns}), ctx: itest.Ctx(t, d)}
}

// client is a member's own client (a process of its own), through link
// when it is not nil, with a session timeout of timeout (4 s when 0).
func (r *rig) client(link *faultlink.Link, timeout time.Duration) *client.Client {
	return itest.Connect(r.t, r.cl, itest.Opts{NS: r.ns, Link: link, Timeout: timeout})
}

// double makes a member of the double barrier at path on c, closed at cleanup.
func (r *rig) double(c *client.Client, path string, n int) *barrier.Double {
	d, err := barrier.NewDouble(c, path, n)
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = d.Close(itest.Ctx(r.t, 10*time.Second)) })
	return d
}

// gate makes a Barrier at path on c, closed at cleanup.
func (r *rig) gate(c *client.Client, path string) *barrier.Barrier {
	b, err := barrier.New(c, path)
	require.NoError(r.t, err)
	r.t.Cleanup(func() { _ = b.Close() })
	return b
}

// enter runs d.Enter on a goroutine of its own; its result arrives on the
// channel returned.
func (r *rig) enter(d *barrier.Double) <-chan error {
	return r.enterCtx(r.ctx, d)
}

// enterCtx is enter with ctx.
func (r *rig) enterCtx(ctx context.Context, d *barrier.Double) <-chan error {
	res := make(chan error, 1)
	go func() { res <- d.Enter(ctx) }()
	return res
}

// leave runs d.Leave on a goroutine of its own.
func (r *rig) leave(d *barrier.Double) <-chan error {
	res := make(chan error, 1)
	go func() { res <- d.Leave(r.ctx) }()
	return res
}

// leaveAll has every member in ds leave at once, requires each Leave to
// return nil, and waits until nothing is left under path.
func (r *rig) leaveAll(path string, ds ...*barrier.Double) {
	r.t.Helper()
	left := make([]<-chan error, 0, len(ds))
	for _, d := range ds {
		left = append(left, r.leave(d))
	}
	for _, l := range left {
		require.NoError(r.t, await(r.t, l, "Leave"))
	}
	r.requireEmpty(path)
}

// wait runs b.Wait on a goroutine of its own.
func (r *rig) wait(ctx context.Context, b *barrier.Barrier) <-chan error {
	res := make(chan error, 1)
	go func() { res <- b.Wait(ctx) }()
	return res
}

// kids lists path's children in name order, as the observer sees them.
func (r *rig) kids(path string) []string { return itest.Children(r.t, r.c, path) }

// members lists path's member nodes: its children but the ready node.
func (r *rig) members(path string) []string {
	return slices.DeleteFunc(r.kids(path), func(k string) bool { return k == "ready" })
}

// waitMembers waits until path has n member nodes.
func (r *rig) waitMembers(path string, n int) []string {
	r.t.Helper()
	var m []string
	itest.Eventually(r.t, 15*time.Second, "member nodes", func() bool {
		m = r.members(path)
		return len(m) == n
	})
	return m
}

// requireEmpty waits until nothing is left under path: no member node and
// no ready node (the path itself, a container, is the server's to reap).
func (r *rig) requireEmpty(path string) {
	r.t.Helper()
	itest.Eventually(r.t, 15*time.Second, "nothing left under "+path, func() bool {
		return len(r.kids(path)) == 0
	})
}

// requireGone waits until path itself is gone (a reaped container, a
// removed barrier).
func (r *rig) requireGone(path string) {
	r.t.Helper()
	itest.Eventually(r.t, 15*time.Second, path+" gone", func() bool { return !itest.Exists(r.t, r.c, path) })
}

// await waits for a call's result.
func await(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	return itest.Await(t, ch, 30*time.Second, what)
}
