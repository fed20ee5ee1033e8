package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/election"
)

// TestRunClosing ports TestLeaderSelector.testClosing: two participants
// whose lead functions block until their context ends; closing the leader
// (its Run's ctx cancelled) ends its term, returns its Run, deletes its node
// and makes the other the leader; closing that one leaves the path empty.
func TestRunClosing(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 30*time.Second)
	obs := connect(t, clientOpts{ns: ns})
	leading := make(chan string, 2)
	lead := func(ctx context.Context, term *election.Term) error {
		leading <- term.ID()
		<-ctx.Done()
		return nil
	}
	ctxA, closeA := context.WithCancel(ctx)
	defer closeA()
	ctxB, closeB := context.WithCancel(ctx)
	defer closeB()
	runs := map[string]<-chan error{
		"a": elRun(ctxA, connect(t, clientOpts{ns: ns}), "a", lead),
		"b": elRun(ctxB, connect(t, clientOpts{ns: ns}), "b", lead),
	}
	closers := map[string]context.CancelFunc{"a": closeA, "b": closeB}

	first := await(t, leading, 10*time.Second, "a first leader")
	waitChildren(t, obs, elPath, 2)
	p, err := election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	assert.Equal(t, first, p.ID)
	other := map[string]string{"a": "b", "b": "a"}[first]
	pending(t, leading, 200*time.Millisecond, "a second leader while the first leads")

	closers[first]()
	require.ErrorIs(t, await(t, runs[first], 10*time.Second, "the closed leader's Run"), context.Canceled)
	assert.Equal(t, other, await(t, leading, 10*time.Second, "the next leader"))
	waitChildren(t, obs, elPath, 1)
	p, err = election.Leader(ctx, obs, elPath)
	require.NoError(t, err)
	assert.Equal(t, other, p.ID)

	closers[other]()
	require.ErrorIs(t, await(t, runs[other], 10*time.Second, "the second Run"), context.Canceled)
	eventually(t, 10*time.Second, "an empty election", func() bool { return len(elNodes(t, obs)) == 0 })
	_, err = election.Leader(ctx, obs, elPath)
	require.ErrorIs(t, err, election.ErrNoLeader)
}
