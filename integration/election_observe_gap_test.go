package integration

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// elGapSession is the session timeout of the clients whose reads a test
// holds back: long enough that the pings held behind a read never make
// them suspend while the leadership changes.
const elGapSession = 20 * time.Second

// elHeldClient is a reader's client on a link of its own, with its next
// getData held back until release (called at cleanup at the latest).
type elHeldClient struct {
	link    *faultlink.Link
	fired   <-chan struct{}
	release func()
}

// TestElectionObserveDelayedReads: readers whose reads are held back while
// the lead passes x -> y -> z, so that every node of their listing (x, y)
// is gone when they read it, never report "no leader": an observer reports
// leaders that led, in order, with no nil between them, and ends on z;
// Leader names z, not ErrNoLeader; Participants lists z, not nobody. A
// reader that is not held back, polling Leader throughout, never sees "no
// leader" either, and never goes back.
func TestElectionObserveDelayedReads(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx := ctxT(t, 90*time.Second)
	history := []string{"x", "y", "z"}

	x := elLatch(t, connect(t, clientOpts{ns: ns}), "x")
	elAwait(t, x, 10*time.Second)

	// The observer: every observation, in the order received.
	olink := newLink(t)
	oc := connect(t, clientOpts{ns: ns, link: olink, timeout: elGapSession})
	octx, ocancel := context.WithCancel(ctx)
	defer ocancel()
	ch, err := election.Observe(octx, oc, elPath)
	require.NoError(t, err)
	var omu sync.Mutex
	var observed []string // "" for no leader
	seen := make(chan string, 100)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for o := range ch {
			id := ""
			if o.Leader != nil {
				id = o.Leader.ID
			}
			omu.Lock()
			observed = append(observed, id)
			omu.Unlock()
			seen <- id
		}
	}()
	require.Equal(t, "x", await(t, seen, 10*time.Second, "the first observation"))

	// A reader that is never held back polls Leader until the end.
	pc := connect(t, clientOpts{ns: ns})
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	var polled []string
	var pollErrs []error
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		for pctx.Err() == nil {
			p, err := election.Leader(pctx, pc, elPath)
			switch {
			case pctx.Err() != nil:
				return
			case err != nil:
				pollErrs = append(pollErrs, err)
			case len(polled) == 0 || polled[len(polled)-1] != p.ID:
				polled = append(polled, p.ID)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()

	// Each held reader's next getData waits: the observer's, then a
	// Leader's and a Participants' of their own.
	held := func(link *faultlink.Link) *elHeldClient {
		fired, release := link.HoldRequest(faultlink.OpGetData)
		t.Cleanup(release) // before the client's Close
		return &elHeldClient{link: link, fired: fired, release: release}
	}
	obs := held(olink)
	// y joins: the observer lists x and y again, and its read waits.
	y := elLatch(t, connect(t, clientOpts{ns: ns}), "y")
	await(t, obs.fired, 10*time.Second, "the observer's read held")

	llink := newLink(t)
	lc := connect(t, clientOpts{ns: ns, link: llink, timeout: elGapSession})
	lead := held(llink)
	type leaderResult struct {
		p   election.Participant
		err error
	}
	leaderDone := make(chan leaderResult, 1)
	go func() {
		p, err := election.Leader(ctx, lc, elPath)
		leaderDone <- leaderResult{p, err}
	}()
	await(t, lead.fired, 10*time.Second, "Leader's read held")

	plink := newLink(t)
	partc := connect(t, clientOpts{ns: ns, link: plink, timeout: elGapSession})
	parts := held(plink)
	type participantsResult struct {
		ps  []election.Participant
		err error
	}
	partsDone := make(chan participantsResult, 1)
	go func() {
		ps, err := election.Participants(ctx, partc, elPath)
		partsDone <- participantsResult{ps, err}
	}()
	await(t, parts.fired, 10*time.Second, "Participants' read held")

	// The lead passes twice while those reads wait: x -> y -> z.
	require.NoError(t, x.Close(ctx))
	elAwait(t, y, 10*time.Second)
	z := elLatch(t, connect(t, clientOpts{ns: ns}), "z")
	require.NoError(t, y.Close(ctx))
	elAwait(t, z, 10*time.Second)
	obs.release()
	lead.release()
	parts.release()

	lr := await(t, leaderDone, 10*time.Second, "Leader")
	if assert.NoError(t, lr.err, "Leader after its listing went stale (no leader although z leads)") {
		assert.Equal(t, "z", lr.p.ID, "Leader")
	}
	pr := await(t, partsDone, 10*time.Second, "Participants")
	if assert.NoError(t, pr.err, "Participants") && assert.NotEmpty(t, pr.ps, "Participants after its listing went stale") {
		assert.Equal(t, "z", pr.ps[0].ID, "Participants' first")
		assert.True(t, pr.ps[0].Leader)
	}

	for id := ""; id != "z"; {
		id = await(t, seen, 10*time.Second, "the observer reaching z")
	}
	pending(t, seen, 300*time.Millisecond, "an observation after z")
	pcancel()
	<-pollDone
	ocancel()
	await(t, ended, 10*time.Second, "Observe's channel closing")

	t.Logf("observed %q; polled %q", observed, polled)
	require.NotEmpty(t, polled, "the poller read no leader")
	elInOrder(t, "the observer", observed, history)
	assert.Equal(t, "z", observed[len(observed)-1], "the observer's last leader")
	for _, err := range pollErrs {
		assert.False(t, errors.Is(err, election.ErrNoLeader), "a poll of Leader saw no leader")
		assert.NoError(t, err, "a poll of Leader")
	}
	elInOrder(t, "the poller", polled, history)
	assert.Equal(t, "z", polled[len(polled)-1], "the poller's last leader")
}

// elInOrder checks that got names leaders of history only, each one a
// leader that led, in history's order (skipping some, never going back),
// and never none.
func elInOrder(t testing.TB, who string, got, history []string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if !assert.NotEqual(t, "", g, "%s reported no leader: %q", who, got) {
			continue
		}
		for i < len(history) && history[i] != g {
			i++
		}
		if !assert.Less(t, i, len(history), "%s reported %q: not in the order of %q", who, got, history) {
			return
		}
	}
}
