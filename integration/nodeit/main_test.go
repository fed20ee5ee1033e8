package nodeit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	"github.com/go-zkrecipes/zkrecipes/zktest"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// shared is the single server most tests use, each under its own namespace.
// Tests that stop or kill servers start their own.
var shared *zktest.Cluster

func TestMain(m *testing.M) {
	zktest.RunMain(m, func(c *zktest.Cluster) {
		fmt.Fprintln(os.Stderr, "nodeit: shared cluster:", c)
		shared = c
		itest.KeepRoot(c)
	})
}

// rig is one test's setup: a client under test behind its own fault link,
// and an observer client in the same namespace that no fault touches.
type rig struct {
	t    *testing.T
	cl   *zktest.Cluster
	link *faultlink.Link
	c    *client.Client
	obs  *client.Client
}

// newRig connects the client under test (session timeout timeout) and the
// observer to cl (the shared server when nil), in a namespace of the test's own.
func newRig(t *testing.T, cl *zktest.Cluster, timeout time.Duration) *rig {
	t.Helper()
	if cl == nil {
		cl = shared
	}
	ns := itest.Namespace(t)
	link := itest.NewLink(t)
	return &rig{
		t:    t,
		cl:   cl,
		link: link,
		c:    itest.Connect(t, cl, itest.Opts{Link: link, NS: ns, Timeout: timeout}),
		obs:  itest.Connect(t, cl, itest.Opts{NS: ns, Timeout: 10 * time.Second}),
	}
}

// ctx is a context that ends after d or at the test's end.
func (r *rig) ctx(d time.Duration) context.Context { return itest.Ctx(r.t, d) }

// dir makes the persistent directory p and, at cleanup (after the nodes'
// Close, registered later), requires it empty and deletes it: nothing may
// be left in it.
func (r *rig) dir(p string) {
	r.t.Helper()
	_, err := r.obs.Create(r.ctx(10*time.Second), p, nil, zk.FlagPersistent, client.WithParents())
	require.NoError(r.t, err)
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		var kids []string
		itest.Eventually(r.t, 10*time.Second, "nothing left in "+p+" after Close", func() bool {
			kids = itest.Children(r.t, r.obs, p)
			return len(kids) == 0
		})
		require.NoError(r.t, r.obs.DeleteIfExists(ctx, p))
	})
}

// start makes and starts a node on the client under test (Start returns
// once the node is first made); Close runs at cleanup (a second Close
// returns the first one's result).
func (r *rig) start(p string, data string, opts ...node.Option) *node.Node {
	r.t.Helper()
	n := r.newNode(p, data, opts...)
	require.NoError(r.t, n.Start(r.ctx(30*time.Second)))
	return n
}

// newNode makes a node on the client under test, closed at cleanup.
func (r *rig) newNode(p string, data string, opts ...node.Option) *node.Node {
	r.t.Helper()
	n, err := node.New(r.c, p, []byte(data), opts...)
	require.NoError(r.t, err)
	r.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = n.Close(ctx)
	})
	return n
}

// kids lists dir's children in name order, as the observer sees them.
func (r *rig) kids(dir string) []string { r.t.Helper(); return itest.Children(r.t, r.obs, dir) }

// read returns p's data and stat, as the observer sees them (nil stat: no node).
func (r *rig) read(p string) ([]byte, *zk.Stat) {
	r.t.Helper()
	data, st, err := r.obs.Get(r.ctx(10*time.Second), p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	require.NoError(r.t, err)
	return data, st
}

// settled reports what is wrong, if anything, with n's node as the observer
// sees dir: it must be dir's only child, at n.Path(), hold n.Data() and,
// when ephemeral, be owned by the client's live session.
func (r *rig) settled(dir string, n *node.Node, ephemeral bool) string {
	p := n.Path()
	kids, err := itest.TryChildren(r.obs, dir)
	if err != nil {
		return err.Error()
	}
	if p == "" || !slices.Equal(kids, []string{path.Base(p)}) || path.Dir(p) != dir {
		return fmt.Sprintf("children of %s are %v, want only the node at %q", dir, kids, p)
	}
	data, st, err := r.obs.Get(r.ctx(10*time.Second), p)
	if err != nil {
		return err.Error()
	}
	if string(data) != string(n.Data()) {
		return fmt.Sprintf("%s holds %q, want %q", p, data, n.Data())
	}
	sess := r.c.Session()
	if ephemeral && (sess == nil || st.EphemeralOwner != sess.ID() || sess.Err() != nil) {
		return fmt.Sprintf("%s is owned by 0x%x, want the live session %v", p, uint64(st.EphemeralOwner), sess)
	}
	if !ephemeral && st.EphemeralOwner != 0 {
		return fmt.Sprintf("%s is ephemeral (owner 0x%x), want persistent", p, uint64(st.EphemeralOwner))
	}
	return ""
}

// requireSettled waits (up to 20 s) until n's node is settled in dir (see settled).
func (r *rig) requireSettled(dir string, n *node.Node, ephemeral bool) {
	r.t.Helper()
	until(r.t, 20*time.Second, func() string { return r.settled(dir, n, ephemeral) })
}

// until calls problem every itest.PollEvery until it returns "", failing
// the test with its last answer when d passes first.
func until(t *testing.T, d time.Duration, problem func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		why := problem()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			require.FailNowf(t, "not settled", "after %v: %s", d, why)
		}
		time.Sleep(itest.PollEvery)
	}
}

// nextEvent returns the node's next event, failing the test when none comes within d.
func nextEvent(t *testing.T, events <-chan node.Event, d time.Duration) node.Event {
	t.Helper()
	select {
	case ev, ok := <-events:
		require.True(t, ok, "the node's event channel was closed")
		return ev
	case <-time.After(d):
		require.FailNowf(t, "no node event", "nothing within %v", d)
		return node.Event{}
	}
}

// expectEvent requires that the node's next event is of type typ, and returns it.
func expectEvent(t *testing.T, events <-chan node.Event, typ node.EventType, d time.Duration) node.Event {
	t.Helper()
	ev := nextEvent(t, events, d)
	require.Equal(t, typ, ev.Type, "event %+v", ev)
	return ev
}

// creates counts the create requests a link carried.
func creates(l *faultlink.Link) int64 {
	return l.Requests(faultlink.OpCreate) + l.Requests(faultlink.OpCreate2) + l.Requests(faultlink.OpCreateTTL)
}
