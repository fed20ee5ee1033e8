package integration

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/retry"
	"github.com/go-zkrecipes/zkrecipes/zktest"
)

// TestLatchLostConnection ports TestLeaderLatch.testLostConnection and,
// beside it, TestLeaderSelector.testServerDying, on a dedicated one-server
// cluster: ten latches (each its own session) and one Run on another path.
// When the server stops, every term ends (the Run's lead sees its context
// cancelled with ErrLost) and nobody leads while it is down, past the
// session timeout; after the restart exactly one latch leads, and the Run
// leads again.
func TestLatchLostConnection(t *testing.T) {
	noLeaks(t)
	cl := zktest.ForTest(t)
	ns := namespace(t)
	ctx := ctxT(t, 150*time.Second)
	pol, err := retry.UntilElapsed(60*time.Second, 250*time.Millisecond)
	require.NoError(t, err)
	opts := clientOpts{cluster: cl, ns: ns, timeout: 2 * time.Second, extra: []client.Option{client.WithRetryPolicy(pol)}}
	var ls []*election.Latch
	for i := 0; i < 10; i++ {
		ls = append(ls, elLatch(t, connect(t, opts), fmt.Sprint(i)))
	}
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	terms := make(chan *election.Term, 10)
	var runTerms atomic.Int32
	done := make(chan error, 1)
	rc := connect(t, opts)
	go func() {
		done <- election.Run(rctx, rc, "/run", func(ctx context.Context, term *election.Term) error {
			runTerms.Add(1)
			terms <- term
			<-ctx.Done()
			return nil
		})
	}()
	first := await(t, terms, 10*time.Second, "the Run's first term")
	elAwait(t, ls[0], 10*time.Second)
	require.Equal(t, []string{"0"}, elLeading(ls))

	require.NoError(t, cl.StopServer(ctx, 0))
	require.True(t, waitClosed(first.Done(), 5*time.Second), "the Run's term outlived the server")
	require.ErrorIs(t, first.Err(), zkrecipes.ErrLost)
	eventually(t, 5*time.Second, "every latch's term ends", func() bool { return len(elLeading(ls)) == 0 })
	elNoLeaderFor(t, 4*time.Second, ls...) // past the 2 s session timeout
	require.EqualValues(t, 1, runTerms.Load())
	require.NoError(t, cl.StartServer(ctx, 0))

	eventually(t, 60*time.Second, "one latch leads after the restart", func() bool { return len(elLeading(ls)) == 1 })
	for i := 0; i < 25; i++ {
		require.Len(t, elLeading(ls), 1, "leaders after the restart")
		time.Sleep(pollEvery)
	}
	second := await(t, terms, 60*time.Second, "the Run's term after the restart")
	require.Greater(t, second.Token(), first.Token())
	rcancel()
	require.ErrorIs(t, await(t, done, 10*time.Second, "Run"), context.Canceled)
}
