package integration

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/integration/zkharness/faultlink"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// TestRunOneWritePerTerm counts, from the client's side, the requests of a
// Run that leads alone for n terms, from the first term on: one transaction
// per later term (the term's delete and the next node's create together,
// no create or delete of their own), and the last term's delete when Run
// returns; per later term one read of its own node (the token) and one
// listing.
func TestRunOneWritePerTerm(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	link := newLink(t)
	c := connect(t, clientOpts{ns: ns, link: link})
	ctx, cancel := context.WithCancel(ctxT(t, 30*time.Second))
	defer cancel()
	const n = 20
	var terms atomic.Int32
	var tokens []int64
	before := map[int32]int64{}
	ops := []int32{faultlink.OpCreate, faultlink.OpCreate2, faultlink.OpDelete, faultlink.OpMulti, faultlink.OpGetData, faultlink.OpGetChildren2}
	done := elRun(ctx, c, "solo", func(ctx context.Context, term *election.Term) error {
		tokens = append(tokens, term.Token())
		switch terms.Add(1) {
		case 1:
			for _, op := range ops {
				before[op] = link.Requests(op)
			}
		case n:
			cancel()
		}
		return nil
	})
	require.ErrorIs(t, await(t, done, 20*time.Second, "Run"), context.Canceled)
	after := map[int32]int64{}
	for _, op := range ops {
		after[op] = link.Requests(op)
	}
	require.Empty(t, elNodes(t, c))
	got := func(op int32) int64 { return after[op] - before[op] }
	require.Zero(t, got(faultlink.OpCreate)+got(faultlink.OpCreate2), "creates")
	require.EqualValues(t, n-1, got(faultlink.OpMulti), "transactions: one per later term")
	require.EqualValues(t, 1, got(faultlink.OpDelete), "deletes: the last term's only")
	require.EqualValues(t, n-1, got(faultlink.OpGetData), "reads of its own node: one per later term")
	require.EqualValues(t, n-1, got(faultlink.OpGetChildren2), "listings: one per later term")
	for i := 1; i < len(tokens); i++ {
		require.Greater(t, tokens[i], tokens[i-1], "tokens grow")
	}
}
