package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/go-zkrecipes/zkrecipes"
	"github.com/go-zkrecipes/zkrecipes/client"
	"github.com/go-zkrecipes/zkrecipes/recipes/election"
	"github.com/go-zkrecipes/zkrecipes/zktest/faultlink"
)

// elKillSession is the session timeout of the participants whose leader
// is "crashed" by blackholing its link: short, so each such kill costs
// about a second, and long enough (the server's tick is 200 ms) that the
// client's suspension, at 2/3 of it, comes well before the server's expiry.
const elKillSession = 800 * time.Millisecond

// elSafety is an in-process detector of overlapping terms that allows for
// what the library promises and no more: a deposed leader's lead function
// may still run after its term's context was cancelled, but when a term
// starts, the context of every term that started before it must be
// cancelled already. Tokens must grow strictly in start order.
type elSafety struct {
	mu       sync.Mutex
	live     []*election.Term // started; context not yet seen cancelled
	starts   []time.Time
	ends     []time.Time // when each term's context was cancelled (AfterFunc: a little late)
	ids      []string
	tokens   []int64
	overlaps []string
	badToks  int
	running  int // lead functions running now
	maxRun   int
}

// start records that term started (call it first thing in lead); it
// returns the term's index.
func (d *elSafety) start(term *election.Term) int {
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	kept := d.live[:0]
	for _, o := range d.live {
		if o.Err() == nil {
			d.overlaps = append(d.overlaps, fmt.Sprintf("term of %s (token %d) started while the term of %s (token %d) was live",
				term.ID(), term.Token(), o.ID(), o.Token()))
			kept = append(kept, o)
		}
	}
	d.live = append(kept, term)
	if n := len(d.tokens); n > 0 && term.Token() <= d.tokens[n-1] {
		d.badToks++
	}
	i := len(d.ids)
	d.ids = append(d.ids, term.ID())
	d.tokens = append(d.tokens, term.Token())
	d.starts = append(d.starts, now)
	d.ends = append(d.ends, time.Time{})
	d.running++
	d.maxRun = max(d.maxRun, d.running)
	context.AfterFunc(term.Context(), func() {
		at := time.Now()
		d.mu.Lock()
		d.ends[i] = at
		d.mu.Unlock()
	})
	return i
}

// killed records that participant id's process was killed: its term ends
// at that instant (a dead process runs no lead function), whenever its
// context learns of it. Only clean kills (the client closed) use it; a
// crash (blackhole) must cancel the context by itself before the next term.
func (d *elSafety) killed(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	kept := d.live[:0]
	for _, o := range d.live {
		if o.ID() != id {
			kept = append(kept, o)
		}
	}
	d.live = kept
}

// leave records that a lead function returned.
func (d *elSafety) leave() {
	d.mu.Lock()
	d.running--
	d.mu.Unlock()
}

func (d *elSafety) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.ids)
}

// elPart is one participant of TestRunHundredTermsUnderKills.
type elPart struct {
	c    *client.Client
	link *faultlink.Link // only for those crashed by a blackhole
	run  <-chan error
}

// TestRunHundredTermsUnderKills (acceptance 5): election.Run participants,
// each its own client, four queued at any time; the leader is killed 100
// times and a new participant joins after each kill. Most kills close the
// leader's client (its session ends at once); every 20th participant has a
// short session and a link, and is killed by blackholing it (a crash: its
// term must end at the suspension, before the server expires the session
// and lets the next one lead). Asserted: no term started while an earlier
// term's context was live (in-process detector), tokens strictly grow in
// start order, at least three crash kills happened, every Run returns, and
// no goroutine is left (goleak).
func TestRunHundredTermsUnderKills(t *testing.T) {
	noLeaks(t)
	ns := namespace(t)
	ctx, cancel := context.WithCancel(ctxT(t, 120*time.Second))
	defer cancel()
	const terms, queued, crashEvery = 100, 4, 20
	var d elSafety
	leaders := make(chan int)
	var parts []*elPart
	add := func() {
		k := len(parts)
		p := &elPart{}
		if k%crashEvery == crashEvery/4 {
			p.link = newLink(t)
			p.c = connect(t, clientOpts{ns: ns, link: p.link, timeout: elKillSession})
		} else {
			p.c = connect(t, clientOpts{ns: ns})
		}
		p.run = elRun(ctx, p.c, fmt.Sprint(k), func(ctx context.Context, term *election.Term) error {
			d.start(term)
			defer d.leave()
			select {
			case leaders <- k:
			case <-ctx.Done():
			}
			<-ctx.Done()
			return nil
		})
		parts = append(parts, p)
	}
	for i := 0; i < queued; i++ {
		add()
	}
	began := time.Now()
	var closing sync.WaitGroup
	var crashed []int // blackholed; closed once the next term has started
	closeCrashed := func() {
		for _, k := range crashed {
			closing.Add(1)
			go func(c *client.Client) { // go-zookeeper waits up to 1 s for the close's reply
				defer closing.Done()
				_ = c.Close()
			}(parts[k].c)
		}
		crashed = nil
	}
	crashes := 0
	for d.count() < terms {
		k := await(t, leaders, 20*time.Second, fmt.Sprintf("a leader after %d terms", d.count()))
		closeCrashed()
		if p := parts[k]; p.link != nil {
			p.link.Blackhole()
			crashed = append(crashed, k)
			crashes++
		} else {
			// A kill: the client's Close ends the term's context only
			// after a goroutine hop or two, which the next leader's grant,
			// a few milliseconds later, could beat on a loaded machine.
			d.killed(fmt.Sprint(k))
			require.NoError(t, p.c.Close())
		}
		add()
	}
	closeCrashed()
	elapsed := time.Since(began)
	cancel()
	for k, p := range parts {
		err := await(t, p.run, 15*time.Second, fmt.Sprint("Run ", k))
		require.True(t, errors.Is(err, context.Canceled) || errors.Is(err, zkrecipes.ErrClosed), "Run %d: %v", k, err)
	}
	closing.Wait()

	d.mu.Lock()
	defer d.mu.Unlock()
	var worst time.Duration = -1
	for i := 1; i < len(d.starts); i++ {
		if gap := d.starts[i].Sub(d.ends[i-1]); !d.ends[i-1].IsZero() && (worst < 0 || gap < worst) {
			worst = gap
		}
	}
	t.Logf("%d terms in %v, %d crash kills, %d participants; lead functions running at once at most %d; "+
		"smallest gap from a term's cancellation (seen a little late) to the next start: %v",
		len(d.ids), elapsed.Round(time.Millisecond), crashes, len(parts), d.maxRun, worst)
	require.Empty(t, d.overlaps, "terms overlapped")
	require.Zero(t, d.badToks, "a token did not grow: %v", d.tokens)
	require.GreaterOrEqual(t, len(d.ids), terms)
	require.GreaterOrEqual(t, crashes, 3, "too few crash kills")
}
