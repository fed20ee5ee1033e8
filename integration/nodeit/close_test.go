package nodeit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/integration/itest"
	"github.com/go-zkrecipes/zkrecipes/recipes/node"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// closeWithin is how long a Close(context.Background()) may take without a
// connection: the guaranteed delete gives a reconnect a second, then
// leaves the delete to the background.
const closeWithin = 3 * time.Second

// closeInBackground calls n.Close(context.Background()) on a goroutine of
// its own and returns its result, failing the test when Close has not
// returned within closeWithin: a deferred Close must never hold up a
// shutdown.
func closeInBackground(t *testing.T, n *node.Node) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- n.Close(context.Background()) }()
	return itest.Await(t, res, closeWithin, "Close(context.Background()) without a connection")
}

// TestNodeCloseSessionLost: with the server stopped and the session Lost,
// Close(context.Background()) returns at once. An ephemeral node went with
// its session: nil, nothing is left to wait for (the restarted server
// brings the session back until it expires it, so one last try deletes
// the node on the next session). A persistent node stays on the server:
// ErrDeletePending, and the guaranteed delete removes it once the server
// is back. Nothing is left in the end.
func TestNodeCloseSessionLost(t *testing.T) {
	itest.NoLeaks(t)
	cl := zktest.ForTest(t)
	r := newRig(t, cl, 2*time.Second)
	r.dir("/svc")
	eph := r.start("/svc/eph", "e")
	per := r.start("/svc/per", "p", node.WithMode(node.Persistent))
	states, unsub := r.c.Subscribe()
	defer unsub()
	sess := r.c.Session()

	ctx := r.ctx(2 * time.Minute)
	require.NoError(t, cl.StopServer(ctx, 0))
	itest.WaitState(t, states, client.StateLost, sess.ID(), 20*time.Second)

	start := time.Now()
	require.NoError(t, closeInBackground(t, eph), "the ephemeral node went with its session")
	err := closeInBackground(t, per)
	require.ErrorIs(t, err, zkrecipes.ErrDeletePending, "the persistent node stays until the server is back")
	t.Logf("both Close calls returned in %v", time.Since(start))
	assert.Equal(t, 2, r.c.PendingDeletes(), "the persistent node's delete, the ephemeral one's last try")

	require.NoError(t, cl.StartServer(ctx, 0))
	itest.Eventually(t, 30*time.Second, "nothing left once the server is back", func() bool {
		kids, err := itest.TryChildren(r.obs, "/svc")
		return err == nil && len(kids) == 0 && r.c.PendingDeletes() == 0
	})
}

// TestNodeCloseSuspended: with the link cut (Suspended, the session alive
// on the server), Close(context.Background()) returns within a second or
// so with ErrDeletePending: the node is still there, being deleted in the
// background. Once the link is back (the same session), the guaranteed
// delete removes it.
func TestNodeCloseSuspended(t *testing.T) {
	itest.NoLeaks(t)
	r := newRig(t, nil, 20*time.Second)
	r.dir("/svc")
	n := r.start("/svc/w1", "x")
	states, unsub := r.c.Subscribe()
	defer unsub()
	sess := r.c.Session()

	r.link.Cut()
	itest.WaitState(t, states, client.StateSuspended, sess.ID(), 10*time.Second)
	err := closeInBackground(t, n)
	require.ErrorIs(t, err, zkrecipes.ErrDeletePending, "the session lives: the delete is pending")
	assert.Len(t, r.kids("/svc"), 1, "the node went while cut")

	r.link.Restore()
	itest.WaitState(t, states, client.StateReconnected, sess.ID(), 20*time.Second)
	itest.Eventually(t, 10*time.Second, "the pending delete runs once the session's connection is back", func() bool {
		return len(r.kids("/svc")) == 0 && r.c.PendingDeletes() == 0
	})
	assert.Same(t, sess, r.c.Session(), "the session survived")
}
